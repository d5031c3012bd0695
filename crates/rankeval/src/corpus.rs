//! The corpus metrics' side of an experiment: where their inputs (catalog,
//! training interactions, item features) come from, which a metric needs,
//! reading them once, and the warnings about recommended items the inputs
//! do not know.

use std::collections::HashSet;
use std::path::PathBuf;

use std::sync::Arc;

use rankeval_core::{
    CorpusInputs, CorpusMetric, DocumentContext, DocumentGroups, LabelPropensities, Metric, Qrels,
    Requirement, Requires, Run, SubtopicQrels,
};

use crate::read::propensity::{PropensityTable, read_propensities};

use crate::read::corpus::{read_catalog, read_item_features, training_from_qrels};
use crate::read::{Input, ReadError, read_qrels_with};
use crate::report::ReportWarning;

/// One input of corpus metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CorpusInput {
    /// The catalog of items.
    Catalog,
    /// Training interactions.
    Training,
    /// Item features or embeddings.
    Features,
}

impl CorpusInput {
    /// Every input, in the order errors and listings give them.
    pub const ALL: [CorpusInput; 3] = [
        CorpusInput::Catalog,
        CorpusInput::Training,
        CorpusInput::Features,
    ];

    /// The command-line flag that gives it.
    pub fn flag(self) -> &'static str {
        match self {
            CorpusInput::Catalog => "--catalog",
            CorpusInput::Training => "--train",
            CorpusInput::Features => "--item-features",
        }
    }

    /// The TOML key that gives it.
    pub fn key(self) -> &'static str {
        match self {
            CorpusInput::Catalog => "catalog",
            CorpusInput::Training => "training",
            CorpusInput::Features => "item_features",
        }
    }

    /// What it is, in words.
    pub fn what(self) -> &'static str {
        match self {
            CorpusInput::Catalog => "the catalog (one item id per line)",
            CorpusInput::Training => "training interactions (user, item pairs)",
            CorpusInput::Features => "item features (a CSV/TSV table: item, then numbers)",
        }
    }

    /// Whether a metric with these needs reads it.
    pub fn required_by(self, requires: Requires) -> bool {
        match self {
            CorpusInput::Catalog => requires.catalog,
            CorpusInput::Training => requires.training,
            CorpusInput::Features => requires.features,
        }
    }
}

/// Where the corpus metrics' inputs are read from; each optional.
#[derive(Clone, Debug, Default)]
pub struct CorpusSources {
    /// The catalog file.
    pub catalog: Option<PathBuf>,
    /// The training interactions, read as qrels (`user item` pairs in any
    /// qrels format; grades are not used).
    pub training: Option<Input>,
    /// The item features file.
    pub features: Option<PathBuf>,
    /// The subtopic judgements, read by the diversity metrics (per-query
    /// metrics that [read them](Metric::reads_subtopics)).
    pub subtopics: Option<PathBuf>,
    /// The document groups, read by the group-fairness metrics
    /// ([`Requirement::DocumentGroups`]).
    pub doc_groups: Option<PathBuf>,
    /// Each query's target distribution over the document groups, read by
    /// AWRF's `target = given` ([`Requirement::GroupTargets`]).
    pub group_targets: Option<PathBuf>,
    /// The label propensities (a label-frequency table with the number of
    /// training instances, or inverse propensities), read by the
    /// propensity-scored metrics ([`Requirement::Propensities`]).
    pub propensities: Option<(PathBuf, PropensityTable)>,
}

/// The document groups as an input: its flag, TOML key (and Python
/// keyword) and what it is, for messages.
pub mod doc_groups_input {
    /// The command-line flag.
    pub const FLAG: &str = "--doc-groups";
    /// The TOML key and Python keyword.
    pub const KEY: &str = "doc_groups";
    /// What it is, in words.
    pub const WHAT: &str = "document groups (rows `doc group [weight]`)";
}

/// The per-query group targets as an input: its flag, TOML key (and
/// Python keyword) and what it is, for messages.
pub mod group_targets_input {
    /// The command-line flag.
    pub const FLAG: &str = "--group-targets";
    /// The TOML key and Python keyword.
    pub const KEY: &str = "group_targets";
    /// What it is, in words.
    pub const WHAT: &str =
        "per-query target distributions over the document groups (a table `query,group,share`)";
}

/// The label propensities as an input: the flags, TOML keys (and Python
/// keywords) that give them and what they are, for messages.
pub mod propensity_input {
    /// The flag of a label-frequency table.
    pub const COUNTS_FLAG: &str = "--label-counts";
    /// The flag of the number of training instances.
    pub const INSTANCES_FLAG: &str = "--train-instances";
    /// The flag of given inverse propensities.
    pub const INVERSE_FLAG: &str = "--inverse-propensities";
    /// The TOML key and Python keyword of a label-frequency table.
    pub const COUNTS_KEY: &str = "label_counts";
    /// The TOML key and Python keyword of the number of training instances.
    pub const INSTANCES_KEY: &str = "train_instances";
    /// The TOML key and Python keyword of given inverse propensities.
    pub const INVERSE_KEY: &str = "inverse_propensities";
    /// What they are, in words.
    pub const WHAT: &str = "label propensities (a table `label,count` of training label \
                            frequencies with the number of training instances, or a table \
                            `label,inverse_propensity`)";
}

/// The subtopic judgements as an input: its flag, TOML key (and Python
/// keyword) and what it is, for messages.
pub mod subtopic_input {
    /// The command-line flag.
    pub const FLAG: &str = "--subtopic-qrels";
    /// The TOML key and Python keyword.
    pub const KEY: &str = "subtopic_qrels";
    /// What it is, in words.
    pub const WHAT: &str = "subtopic judgements (lines `query subtopic doc grade`)";
}

impl CorpusSources {
    /// Whether `input` is given.
    pub fn has(&self, input: CorpusInput) -> bool {
        match input {
            CorpusInput::Catalog => self.catalog.is_some(),
            CorpusInput::Training => self.training.is_some(),
            CorpusInput::Features => self.features.is_some(),
        }
    }

    /// The first input `metric` needs that is not given.
    pub fn missing_for(&self, metric: &dyn CorpusMetric) -> Option<CorpusInput> {
        let requires = metric.requires();
        CorpusInput::ALL
            .into_iter()
            .find(|&input| input.required_by(requires) && !self.has(input))
    }

    /// The files given, with what each is, for the check that the report
    /// does not overwrite an input.
    pub fn paths(&self) -> Vec<(&'static str, &std::path::Path)> {
        let mut paths = Vec::new();
        if let Some(path) = &self.catalog {
            paths.push(("the catalog", path.as_path()));
        }
        if let Some(path) = self.training.as_ref().and_then(Input::path) {
            paths.push(("the training interactions", path));
        }
        if let Some(path) = &self.features {
            paths.push(("the item features", path.as_path()));
        }
        if let Some(path) = &self.subtopics {
            paths.push(("the subtopic judgements", path.as_path()));
        }
        if let Some(path) = &self.doc_groups {
            paths.push(("the document groups", path.as_path()));
        }
        if let Some(path) = &self.group_targets {
            paths.push(("the group targets", path.as_path()));
        }
        if let Some((path, _)) = &self.propensities {
            paths.push(("the label propensities", path.as_path()));
        }
        paths
    }

    /// Whether document groups are given that no metric of `metrics`
    /// reads.
    pub fn groups_unused(&self, metrics: &[Box<dyn Metric>]) -> bool {
        self.doc_groups.is_some()
            && !rankeval_core::context::any_requires(metrics, Requirement::DocumentGroups)
    }

    /// Whether group targets are given that no metric of `metrics` reads.
    pub fn targets_unused(&self, metrics: &[Box<dyn Metric>]) -> bool {
        self.group_targets.is_some()
            && !rankeval_core::context::any_requires(metrics, Requirement::GroupTargets)
    }

    /// Reads the document groups, if given and some metric of `metrics`
    /// reads them, with the per-query group targets when a metric reads
    /// them too.
    pub fn read_doc_groups(
        &self,
        metrics: &[Box<dyn Metric>],
    ) -> Result<Option<Arc<DocumentGroups>>, ReadError> {
        match &self.doc_groups {
            Some(path)
                if rankeval_core::context::any_requires(metrics, Requirement::DocumentGroups) =>
            {
                let groups = crate::read::doc_groups::read_doc_groups(path)?;
                let groups = match &self.group_targets {
                    Some(targets)
                        if rankeval_core::context::any_requires(
                            metrics,
                            Requirement::GroupTargets,
                        ) =>
                    {
                        let table = crate::read::group_targets::read_group_targets(targets)?;
                        groups.with_targets(&table).map_err(|e| ReadError {
                            path: targets.display().to_string(),
                            line: None,
                            kind: crate::read::ReadErrorKind::BadField(e.to_string()),
                        })?
                    }
                    _ => groups,
                };
                Ok(Some(Arc::new(groups)))
            }
            _ => Ok(None),
        }
    }

    /// Refuses qrels with a query that the group targets give no target,
    /// when a metric of `metrics` reads them: such a query would have no
    /// distribution to compare (AWRF 0 without a word). Names the file,
    /// the first such query in the qrels' order and how many there are.
    pub fn check_targets_cover(
        &self,
        qrels: &rankeval_core::Qrels,
        groups: &DocumentGroups,
        metrics: &[Box<dyn Metric>],
    ) -> Result<(), ReadError> {
        let Some(path) = &self.group_targets else {
            return Ok(());
        };
        if !rankeval_core::context::any_requires(metrics, Requirement::GroupTargets) {
            return Ok(());
        }
        let missing: Vec<u32> = (0..qrels.num_queries() as u32)
            .filter(|&q| groups.target(qrels.query_bytes(q)).is_none())
            .collect();
        match missing.first() {
            None => Ok(()),
            Some(&first) => Err(ReadError {
                path: path.display().to_string(),
                line: None,
                kind: crate::read::ReadErrorKind::BadField(format!(
                    "no target for query `{}` of the qrels ({} of {} queries have none): give \
                     every judged query a target",
                    rankeval_core::shorten_id(qrels.query_bytes(first)),
                    missing.len(),
                    qrels.num_queries()
                )),
            }),
        }
    }

    /// Whether `metric` reads subtopic judgements that are not given.
    pub fn misses_subtopics_for(&self, metric: &dyn Metric) -> bool {
        metric.reads_subtopics() && self.subtopics.is_none()
    }

    /// Whether subtopic judgements are given that no metric of `metrics`
    /// reads.
    pub fn subtopics_unused(&self, metrics: &[Box<dyn Metric>]) -> bool {
        self.subtopics.is_some() && !metrics.iter().any(|m| m.reads_subtopics())
    }

    /// Reads the subtopic judgements, if given and some metric of
    /// `metrics` reads them.
    pub fn read_subtopics(
        &self,
        metrics: &[Box<dyn Metric>],
    ) -> Result<Option<Arc<SubtopicQrels>>, ReadError> {
        match &self.subtopics {
            Some(path) if metrics.iter().any(|m| m.reads_subtopics()) => Ok(Some(Arc::new(
                crate::read::subtopics::read_subtopic_qrels(path)?,
            ))),
            _ => Ok(None),
        }
    }

    /// Whether label propensities are given that no metric of `metrics`
    /// reads.
    pub fn propensities_unused(&self, metrics: &[Box<dyn Metric>]) -> bool {
        self.propensities.is_some()
            && !rankeval_core::context::any_requires(metrics, Requirement::Propensities)
    }

    /// Reads the label propensities, if given and some metric of `metrics`
    /// reads them.
    pub fn read_propensities(
        &self,
        metrics: &[Box<dyn Metric>],
    ) -> Result<Option<Arc<LabelPropensities>>, ReadError> {
        match &self.propensities {
            Some((path, table))
                if rankeval_core::context::any_requires(metrics, Requirement::Propensities) =>
            {
                Ok(Some(Arc::new(read_propensities(path, *table)?)))
            }
            _ => Ok(None),
        }
    }

    /// `qrels` with the per-document facts `metrics` require
    /// ([`rankeval_core::context`]): built over these qrels from
    /// `propensities` (read by [`read_propensities`](Self::read_propensities))
    /// and the qrels' own documents; `qrels` as they are when no metric
    /// requires any. A judged document without a given inverse propensity
    /// is an error naming the propensity file.
    pub fn with_documents(
        &self,
        qrels: Qrels,
        metrics: &[Box<dyn Metric>],
        propensities: Option<&Arc<LabelPropensities>>,
    ) -> Result<Qrels, ReadError> {
        let mut requirements: Vec<Requirement> = Vec::new();
        for metric in metrics {
            for &r in metric.requires() {
                if !requirements.contains(&r) {
                    requirements.push(r);
                }
            }
        }
        if !requirements
            .iter()
            .any(|r| matches!(r, Requirement::Propensities | Requirement::JudgedAnywhere))
        {
            return Ok(qrels);
        }
        let context = DocumentContext::build(&qrels, &requirements, propensities.cloned())
            .map_err(|missing| ReadError {
                path: self
                    .propensities
                    .as_ref()
                    .map_or_else(String::new, |(path, _)| path.display().to_string()),
                line: None,
                kind: crate::read::ReadErrorKind::BadField(missing.to_string()),
            })?;
        Ok(qrels.with_documents(Arc::new(context)))
    }

    /// The inputs given that no metric of `metrics` reads.
    pub fn unused(&self, metrics: &[Box<dyn CorpusMetric>]) -> Vec<CorpusInput> {
        CorpusInput::ALL
            .into_iter()
            .filter(|&input| {
                self.has(input) && !metrics.iter().any(|m| input.required_by(m.requires()))
            })
            .collect()
    }

    /// Reads the inputs that some metric of `metrics` needs (outside the
    /// progress bar, which counts the qrels and runs).
    pub fn read(&self, metrics: &[Box<dyn CorpusMetric>]) -> Result<CorpusInputs, ReadError> {
        let needed = |input: CorpusInput| metrics.iter().any(|m| input.required_by(m.requires()));
        let mut inputs = CorpusInputs::default();
        if let (Some(path), true) = (&self.catalog, needed(CorpusInput::Catalog)) {
            inputs.catalog = Some(read_catalog(path)?);
        }
        if let (Some(input), true) = (&self.training, needed(CorpusInput::Training)) {
            let qrels = read_qrels_with(input, &|_| {}).map_err(as_training)?;
            inputs.training = Some(training_from_qrels(&qrels));
        }
        if let (Some(path), true) = (&self.features, needed(CorpusInput::Features)) {
            inputs.features = Some(read_item_features(path)?);
        }
        Ok(inputs)
    }
}

/// A read error of the training interactions, which are read as qrels: a
/// missing column then names the training input's options.
fn as_training(mut error: ReadError) -> ReadError {
    if let crate::read::ReadErrorKind::MissingColumn(missing) = error.kind {
        let missing = missing.reading(crate::read::missing_column::InputKind::Training);
        error.kind = crate::read::ReadErrorKind::MissingColumn(Box::new(missing));
    }
    error
}

/// Examples a warning names.
const EXAMPLES: usize = 5;

/// Warnings about the recommended items (in the top k of the metrics that
/// read an input) that the catalog or the features do not know.
pub fn item_warnings(
    run: &Run,
    metrics: &[Box<dyn CorpusMetric>],
    inputs: &CorpusInputs,
) -> Vec<ReportWarning> {
    let mut warnings = Vec::new();
    let depth = |input: CorpusInput| -> Option<Option<usize>> {
        metrics
            .iter()
            .filter(|m| input.required_by(m.requires()))
            .map(|m| m.depth().map(|k| k.get()))
            .reduce(|a, b| match (a, b) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            })
    };
    let unknown = |depth: Option<usize>, known: &dyn Fn(&[u8]) -> bool| {
        let mut seen: HashSet<&[u8]> = HashSet::new();
        for query in 0..run.num_queries() as u32 {
            let list = run.list_at(query);
            for doc in list.docs().take(depth.unwrap_or(usize::MAX)) {
                if !known(doc) {
                    seen.insert(doc);
                }
            }
        }
        let mut examples: Vec<&[u8]> = seen.iter().copied().collect();
        examples.sort_unstable();
        (
            seen.len(),
            examples
                .into_iter()
                .take(EXAMPLES)
                .map(rankeval_core::shorten_id)
                .collect::<Vec<String>>(),
        )
    };
    if let (Some(depth), Some(catalog)) = (depth(CorpusInput::Catalog), &inputs.catalog) {
        let (count, examples) = unknown(depth, &|item| catalog.contains(item));
        if count > 0 {
            warnings.push(ReportWarning::ItemsOutsideCatalog { count, examples });
        }
    }
    if let (Some(depth), Some(features)) = (depth(CorpusInput::Features), &inputs.features) {
        let (count, examples) = unknown(depth, &|item| features.get(item).is_some());
        if count > 0 {
            warnings.push(ReportWarning::ItemsWithoutFeatures { count, examples });
        }
    }
    warnings
}
