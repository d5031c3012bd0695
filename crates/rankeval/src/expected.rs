//! Metrics under label distributions: judgements that are probabilities of
//! each grade (an LLM judge's label probabilities, several assessors'
//! votes), and each metric's expected value under them
//! (docs/judgements.md, "Label distributions").
//!
//! Each judged document's grade is a random variable with its own
//! distribution, independent of the others'; unjudged documents keep
//! grade 0 as everywhere. A metric's expected value for one query is
//! computed, in this order of preference:
//!
//! - **additive** metrics ([`Metric::is_additive`]: precision@k, DCG, binary
//!   RBP, counts, utility): exactly, from the value at one base labelling
//!   plus each document's change of grade weighted by its probability
//!   (linearity of expectation);
//! - any metric, when the query's labellings number at most
//!   [`ExpectedSettings::enumeration_limit`]: exactly, by enumerating them
//!   with their probabilities;
//! - otherwise by Monte Carlo: [`ExpectedSettings::samples`] labellings
//!   drawn from the distributions, with the standard error of their mean.
//!   The draws of a query come from ChaCha20 seeded with the seed, on a
//!   stream keyed by the query id: the same for every run and metric
//!   (paired draws), any thread count and any order of the input.
//!
//! Beside it, the value at each document's most likely grade (what a
//! pipeline that keeps the argmax label would report).

use rand_core::Rng;
use std::collections::HashMap;

use rankeval_core::exact_sum::fmean;
use rankeval_core::{
    Grade, JudgedRanking, Judgement, Metric, Qrels, QrelsBuilder, Run, shorten_id,
};
use rankeval_stats::keyed::spark_xxhash64;
use rankeval_stats::rng::chunk_rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::engine::{
    Missing, Options, QuerySample, averages, judge_for, judged_depth, score_judged,
};
use crate::read::{CsvOptions, Format, Input, ReadError, WholeInput, read_qrels, read_whole};

/// How far a document's probabilities may sum from 1 before it is an error
/// (they are then divided by their sum).
pub const SUM_TOLERANCE: f64 = 1e-6;

/// The most labellings of one query that may be enumerated
/// ([`ExpectedSettings::enumeration_limit`], `--exact-up-to`): 2^20. Each
/// labelling scores every metric once, so a query at this bound costs about
/// a hundred times the default Monte Carlo draws; a larger limit would let
/// one query enumerate for hours (2^63 labellings never end).
pub const MAX_ENUMERATION_LIMIT: usize = 1 << 20;

/// The most Monte Carlo draws per query ([`ExpectedSettings::samples`],
/// `--samples`): 10^7, a thousand times the default (its standard error a
/// thirtieth of the default's), so that no setting draws without end.
pub const MAX_SAMPLES: usize = 10_000_000;

/// The generator of the Monte Carlo draws, as printed in reports.
pub const EXPECTED_RNG_NAME: &str =
    "ChaCha20 (rand_chacha 0.10, seed_from_u64(seed), stream = Spark xxhash64 of the query)";

/// Why label distributions could not be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LabelsError {
    /// No grade column was given.
    #[error("no label columns: give at least two, COLUMN=GRADE each")]
    NoColumns,
    /// Two columns name one grade.
    #[error("grade {grade} is given by two columns")]
    RepeatedGrade {
        /// The grade.
        grade: Grade,
    },
    /// A probability outside [0, 1].
    #[error(
        "query `{}`, document `{}`: probability {value} of grade {grade} is not in [0, 1]",
        shorten_id(.query.as_bytes()),
        shorten_id(.doc.as_bytes())
    )]
    NotAProbability {
        /// The query.
        query: String,
        /// The document.
        doc: String,
        /// The grade whose column holds it.
        grade: Grade,
        /// The value read.
        value: f64,
    },
    /// A document in one column's table and not in another's.
    #[error(
        "query `{}`, document `{}`: no probability for grade {grade}",
        shorten_id(.query.as_bytes()),
        shorten_id(.doc.as_bytes())
    )]
    MissingProbability {
        /// The query.
        query: String,
        /// The document.
        doc: String,
        /// The grade without a value.
        grade: Grade,
    },
    /// A document whose probabilities do not sum to 1.
    #[error(
        "query `{}`, document `{}`: the probabilities sum to {sum}, not 1 (within {SUM_TOLERANCE})",
        shorten_id(.query.as_bytes()),
        shorten_id(.doc.as_bytes())
    )]
    NotADistribution {
        /// The query.
        query: String,
        /// The document.
        doc: String,
        /// Their sum.
        sum: f64,
    },
    /// The qrels built from the distributions were refused.
    #[error("{0}")]
    Build(String),
    /// The settings ask for more work than any query may take.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// Settings of [`ExpectedSettings`] outside their bounds, refused before
/// any query is scored.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    /// An enumeration limit above [`MAX_ENUMERATION_LIMIT`].
    #[error(
        "at most {max} labellings of a query are enumerated, not {limit} (a query with more is \
         estimated by Monte Carlo)",
        max = MAX_ENUMERATION_LIMIT
    )]
    EnumerationLimit {
        /// The limit asked for.
        limit: usize,
    },
    /// More draws than [`MAX_SAMPLES`], or fewer than 2.
    #[error(
        "the Monte Carlo draws per query must be from 2 (the standard error needs two) to {max}, \
         not {samples}",
        max = MAX_SAMPLES
    )]
    Samples {
        /// The draws asked for.
        samples: usize,
    },
}

/// Why label distributions could not be read from a table.
#[derive(Debug, thiserror::Error)]
pub enum ReadLabelsError {
    /// The table could not be read: the file, the line or row, the problem.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The input's format has no columns to hold probabilities.
    #[error(
        "{name}: label distributions are a table (CSV, TSV, JSON Lines rows, Parquet, Arrow), \
         not {format}"
    )]
    NotATable {
        /// The input, as named.
        name: String,
        /// Its format.
        format: &'static str,
    },
    /// The table's values are not distributions.
    #[error("{name}: {source}")]
    Labels {
        /// The input, as named.
        name: String,
        /// What is wrong, naming the query and document.
        source: LabelsError,
    },
}

/// Reads label distributions from a table (CSV, TSV, JSON Lines rows,
/// Parquet, Arrow): `input`'s column settings name its query and document
/// columns, and `labels` gives each probability column with the grade it is
/// the probability of. The table is read once per column: an input that
/// cannot be read twice (a pipe, a FIFO, `/dev/stdin`) is first read whole,
/// within the readers' limits ([`read_whole`]: 2 GiB, 64 MiB lines,
/// Parquet's magic), so that nothing waits on a pipe already drained. An
/// empty cell is an error naming its line or row.
pub fn read_labels(
    input: &Input,
    labels: &[(String, Grade)],
) -> Result<LabelDistributions, ReadLabelsError> {
    let format = input.format();
    let kind = match format {
        Format::Csv | Format::Jsonl | Format::JsonlRows | Format::Parquet | Format::Arrow => {
            WholeInput::of_format(format)
        }
        Format::Trec | Format::Msmarco | Format::Json => {
            return Err(ReadLabelsError::NotATable {
                name: input.name().to_owned(),
                format: match format {
                    Format::Trec => "TREC qrels",
                    Format::Msmarco => "MS MARCO qrels",
                    _ => "a JSON dict of dicts",
                },
            });
        }
    };
    let once;
    let input = match input.path() {
        Some(path) if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {
            let bytes = read_whole(path, kind).map_err(|mut e| {
                e.path = input.name().to_owned();
                e
            })?;
            once =
                Input::bytes(input.name(), bytes, format).with_columns(input.csv_options().clone());
            &once
        }
        _ => input,
    };
    let tables: Vec<(Grade, Qrels)> = labels
        .iter()
        .map(|(column, grade)| {
            let columns = CsvOptions {
                grade: column.clone(),
                ..input.csv_options().clone()
            };
            Ok((*grade, read_qrels(&input.clone().with_columns(columns))?))
        })
        .collect::<Result<_, ReadError>>()?;
    let borrowed: Vec<(Grade, &Qrels)> = tables.iter().map(|(g, q)| (*g, q)).collect();
    LabelDistributions::from_columns(&borrowed).map_err(|source| ReadLabelsError::Labels {
        name: input.name().to_owned(),
        source,
    })
}

/// One query's judged documents and each one's grades with their
/// probabilities.
#[derive(Clone, Debug)]
struct QueryLabels {
    name: String,
    docs: Vec<String>,
    /// Per document: `(grade, probability)` of every grade with a positive
    /// probability, grades ascending, probabilities summing to 1.
    support: Vec<Vec<(Grade, f64)>>,
}

/// Judgements as probabilities of grades, per query and document.
#[derive(Clone, Debug)]
pub struct LabelDistributions {
    queries: Vec<QueryLabels>,
    grades: Vec<Grade>,
}

impl LabelDistributions {
    /// From one qrels per grade whose "grades" are the probabilities of
    /// that grade (one table read once per probability column). Every
    /// document must have a probability in each, in [0, 1], summing to 1
    /// within [`SUM_TOLERANCE`]. Queries are in the first column's order,
    /// each query's documents in id order.
    pub fn from_columns(columns: &[(Grade, &Qrels)]) -> Result<Self, LabelsError> {
        let Some(&(_, first)) = columns.first() else {
            return Err(LabelsError::NoColumns);
        };
        let mut grades: Vec<Grade> = columns.iter().map(|&(g, _)| g).collect();
        grades.sort_by(f64::total_cmp);
        if let Some(w) = grades.windows(2).find(|w| w[0] == w[1]) {
            return Err(LabelsError::RepeatedGrade { grade: w[0] });
        }
        let mut queries = Vec::with_capacity(first.num_queries());
        for (index, name) in first.queries().enumerate() {
            let mut docs = Vec::new();
            let mut support = Vec::new();
            // Each column's values of this query, by document: one pass
            // per column rather than a scan per document.
            let by_doc: Vec<HashMap<&[u8], f64>> = columns
                .iter()
                .map(|&(_, qrels)| {
                    qrels
                        .query_index(name.as_bytes())
                        .map(|q| qrels.judgements(q).collect())
                        .unwrap_or_default()
                })
                .collect();
            for (doc, _) in first.judgements(index as u32) {
                let doc_name = String::from_utf8_lossy(doc).into_owned();
                let mut probabilities: Vec<(Grade, f64)> = Vec::with_capacity(columns.len());
                for (&(grade, _), values) in columns.iter().zip(&by_doc) {
                    let value = values.get(doc).copied().ok_or_else(|| {
                        LabelsError::MissingProbability {
                            query: name.to_owned(),
                            doc: doc_name.clone(),
                            grade,
                        }
                    })?;
                    if !(0.0..=1.0).contains(&value) {
                        return Err(LabelsError::NotAProbability {
                            query: name.to_owned(),
                            doc: doc_name,
                            grade,
                            value,
                        });
                    }
                    probabilities.push((grade, value));
                }
                let sum: f64 = probabilities.iter().map(|&(_, p)| p).sum();
                if (sum - 1.0).abs() > SUM_TOLERANCE {
                    return Err(LabelsError::NotADistribution {
                        query: name.to_owned(),
                        doc: doc_name,
                        sum,
                    });
                }
                probabilities.retain(|&(_, p)| p > 0.0);
                probabilities.sort_by(|a, b| a.0.total_cmp(&b.0));
                for entry in &mut probabilities {
                    entry.1 /= sum;
                }
                docs.push(doc_name);
                support.push(probabilities);
            }
            // Documents in id order: draws and sums do not depend on the
            // order of the input.
            let mut order: Vec<usize> = (0..docs.len()).collect();
            order.sort_by(|&a, &b| docs[a].cmp(&docs[b]));
            let docs = order.iter().map(|&i| docs[i].clone()).collect();
            let support = order.iter().map(|&i| support[i].clone()).collect();
            queries.push(QueryLabels {
                name: name.to_owned(),
                docs,
                support,
            });
        }
        // Every document of the first column has a value in each other; one
        // with more documents has one the first lacks, which would be
        // dropped without a word.
        for &(_, qrels) in &columns[1..] {
            if qrels.num_judgements() > first.num_judgements() {
                for (q, query) in qrels.queries().enumerate() {
                    let known: std::collections::HashSet<&[u8]> = first
                        .query_index(query.as_bytes())
                        .map(|k| first.judgements(k).map(|(d, _)| d).collect())
                        .unwrap_or_default();
                    for (doc, _) in qrels.judgements(q as u32) {
                        if !known.contains(doc) {
                            return Err(LabelsError::MissingProbability {
                                query: query.to_owned(),
                                doc: String::from_utf8_lossy(doc).into_owned(),
                                grade: columns[0].0,
                            });
                        }
                    }
                }
            }
        }
        Ok(Self { queries, grades })
    }

    /// The grades the columns give, ascending.
    pub fn grades(&self) -> &[Grade] {
        &self.grades
    }

    /// The number of queries.
    pub fn num_queries(&self) -> usize {
        self.queries.len()
    }

    /// The judged documents whose grade is uncertain (two grades or more
    /// with a positive probability), over all queries.
    pub fn uncertain_documents(&self) -> usize {
        self.queries
            .iter()
            .map(|q| q.support.iter().filter(|s| s.len() > 1).count())
            .sum()
    }

    /// The qrels of each document's most likely grade (the lower of two
    /// equally likely grades).
    pub fn most_likely(&self) -> Result<Qrels, LabelsError> {
        self.qrels_with(|_, support| most_likely(support))
    }

    /// Qrels whose "grade" of each document is its position in its query's
    /// list: judging a run with them tells which document is at each rank.
    fn positions(&self) -> Result<Qrels, LabelsError> {
        self.qrels_with(|i, _| i as Grade)
    }

    /// Qrels with the grade `pick` gives each document (from its position
    /// in its query and its support); every query keeps its place.
    fn qrels_with(
        &self,
        pick: impl Fn(usize, &[(Grade, f64)]) -> Grade,
    ) -> Result<Qrels, LabelsError> {
        let build = |e: rankeval_core::QrelsError| LabelsError::Build(e.to_string());
        let mut builder = QrelsBuilder::new();
        for (at, query) in self.queries.iter().enumerate() {
            builder
                .declare_query(query.name.as_bytes(), at as u64)
                .map_err(build)?;
            for (i, (doc, support)) in query.docs.iter().zip(&query.support).enumerate() {
                builder
                    .push(query.name.as_str(), doc.as_str(), pick(i, support))
                    .map_err(build)?;
            }
        }
        builder.finish().map_err(build)
    }
}

/// The most likely grade of a support (the lower of two equally likely).
fn most_likely(support: &[(Grade, f64)]) -> Grade {
    support
        .iter()
        .fold(None::<(Grade, f64)>, |best, &(g, p)| match best {
            Some((_, bp)) if bp >= p => best,
            _ => Some((g, p)),
        })
        .map_or(0.0, |(g, _)| g)
}

/// How expected values are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectedSettings {
    /// Monte Carlo draws per query, when neither exact method applies.
    pub samples: usize,
    /// The seed of the draws.
    pub seed: u64,
    /// The most labellings of one query that are enumerated exactly.
    pub enumeration_limit: usize,
}

impl ExpectedSettings {
    /// Refuses settings that would let one query run without end: an
    /// enumeration limit above [`MAX_ENUMERATION_LIMIT`], draws outside
    /// 2..=[`MAX_SAMPLES`]. [`expected`] checks them before scoring anything.
    pub fn check(&self) -> Result<(), SettingsError> {
        if self.enumeration_limit > MAX_ENUMERATION_LIMIT {
            return Err(SettingsError::EnumerationLimit {
                limit: self.enumeration_limit,
            });
        }
        if !(2..=MAX_SAMPLES).contains(&self.samples) {
            return Err(SettingsError::Samples {
                samples: self.samples,
            });
        }
        Ok(())
    }
}

impl Default for ExpectedSettings {
    fn default() -> Self {
        Self {
            samples: 10_000,
            seed: rankeval_stats::DEFAULT_SEED,
            enumeration_limit: 4096,
        }
    }
}

/// How one query's expected value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Exact: the metric is additive in the grades.
    Additive,
    /// Exact: every labelling of the query, weighted by its probability.
    Enumerated,
    /// Monte Carlo, with a standard error.
    Sampled,
}

/// One metric's expected value for one query.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QueryExpectation {
    /// The expected value.
    pub expected: f64,
    /// Its Monte Carlo standard error (0 when exact).
    pub standard_error: f64,
    /// The value at each document's most likely grade.
    pub most_likely: f64,
    /// How it was computed.
    pub method: Method,
}

/// One query's expected values, one per metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectedQuery {
    /// The query id.
    pub query: String,
    /// One per metric, in the order asked.
    pub values: Vec<QueryExpectation>,
}

/// One metric of one run, over its queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectedMetric {
    /// The metric's canonical name.
    pub metric: String,
    /// The mean over queries of the expected values.
    pub expected: f64,
    /// The Monte Carlo standard error of that mean (0 when every query is
    /// exact): `sqrt(sum of the queries' squared errors) / n`.
    pub standard_error: f64,
    /// The mean of the values at the most likely grades.
    pub most_likely: f64,
    /// Queries computed exactly because the metric is additive.
    pub additive: usize,
    /// Queries computed exactly by enumeration.
    pub enumerated: usize,
    /// Queries computed by Monte Carlo.
    pub sampled: usize,
}

/// One run's expected values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectedRun {
    /// The run's name.
    pub name: String,
    /// One per metric, in the order asked.
    pub metrics: Vec<ExpectedMetric>,
    /// Per query, in the labels' order.
    pub queries: Vec<ExpectedQuery>,
    /// Labelled queries the run has no list for: left out of
    /// [`queries`](Self::queries) with `missing = skip`, scored on an empty
    /// list with `zero`; counted, with the first few ids in byte order.
    pub missing: QuerySample,
}

/// How many ids of the labelled queries a run lacks are kept, for messages.
const MISSING_EXAMPLES: usize = 5;

/// Every run's expected values under the label distributions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectedReport {
    /// The metrics' canonical names.
    pub metrics: Vec<String>,
    /// The grades the label columns give.
    pub grades: Vec<Grade>,
    /// Labelled queries.
    pub labelled_queries: usize,
    /// Judged documents whose grade is uncertain.
    pub uncertain_documents: usize,
    /// How the values were computed.
    pub settings: ExpectedSettings,
    /// The generator of the Monte Carlo draws.
    pub rng: &'static str,
    /// The runs, in the order given.
    pub runs: Vec<ExpectedRun>,
}

/// The expected value of every metric on every run under `labels`.
/// Queries follow `options.missing` as in `eval`: a labelled query the run
/// lacks is skipped or scored on an empty list. Settings outside their
/// bounds ([`ExpectedSettings::check`]) are an error before anything is
/// scored.
pub fn expected(
    labels: &LabelDistributions,
    runs: &[(String, &Run)],
    metrics: &[Box<dyn Metric>],
    options: &Options,
    settings: &ExpectedSettings,
) -> Result<ExpectedReport, LabelsError> {
    settings.check()?;
    let positions = labels.positions()?;
    let additive: Vec<bool> = metrics.iter().map(|m| m.is_additive()).collect();
    let runs = runs
        .iter()
        .map(|(name, run)| {
            let queries: Vec<ExpectedQuery> = labels
                .queries
                .par_iter()
                .filter_map(|query| {
                    let list = run
                        .query_index(query.name.as_bytes())
                        .map(|r| options.retrieved(run.list_at(r)));
                    if list.is_none() && options.missing == Missing::Skip {
                        return None;
                    }
                    let mut judge = judge_for(judged_depth(metrics), options, metrics);
                    let index = positions.query_index(query.name.as_bytes())?;
                    let judged = judge.judge(&positions, index, list);
                    let template = Template::new(&judged, averages(metrics, options.ties));
                    let values = QueryScorer {
                        template: &template,
                        support: &query.support,
                        metrics,
                        options,
                        additive: &additive,
                    }
                    .expectations(settings, &query.name);
                    Some(ExpectedQuery {
                        query: query.name.clone(),
                        values,
                    })
                })
                .collect();
            let mut missing: Vec<&str> = labels
                .queries
                .iter()
                .map(|q| q.name.as_str())
                .filter(|q| run.query_index(q.as_bytes()).is_none())
                .collect();
            let count = missing.len();
            missing.sort_unstable();
            missing.truncate(MISSING_EXAMPLES);
            ExpectedRun {
                name: name.clone(),
                metrics: summarize(metrics, &queries),
                queries,
                missing: QuerySample {
                    count,
                    first: missing.into_iter().map(str::to_owned).collect(),
                },
            }
        })
        .collect();
    Ok(ExpectedReport {
        metrics: metrics.iter().map(|m| m.name()).collect(),
        grades: labels.grades.clone(),
        labelled_queries: labels.num_queries(),
        uncertain_documents: labels.uncertain_documents(),
        settings: *settings,
        rng: EXPECTED_RNG_NAME,
        runs,
    })
}

/// One query's ranking as positions in its list of labelled documents.
struct Template {
    /// The labelled document at each judged rank, if any.
    ranks: Vec<Option<usize>>,
    /// The list's full length.
    retrieved: usize,
    /// The ends of the groups of tied scores (empty: none computed).
    tie_ends: Vec<u32>,
    level: rankeval_core::RelevanceLevel,
}

impl Template {
    fn new(judged: &JudgedRanking<'_>, ties: bool) -> Self {
        Self {
            ranks: judged
                .ranked()
                .iter()
                .map(|j| j.is_judged().then(|| j.grade() as usize))
                .collect(),
            retrieved: judged.retrieved(),
            tie_ends: if ties {
                judged.tie_groups().map(|r| r.end as u32).collect()
            } else {
                Vec::new()
            },
            level: judged.default_level(),
        }
    }
}

/// Scores the metrics of one query under given labellings.
struct QueryScorer<'a> {
    template: &'a Template,
    support: &'a [Vec<(Grade, f64)>],
    metrics: &'a [Box<dyn Metric>],
    options: &'a Options,
    additive: &'a [bool],
}

/// Buffers of one labelling's judged ranking.
#[derive(Default)]
struct Scratch {
    ranked: Vec<Judgement>,
    ideal: Vec<Grade>,
}

impl QueryScorer<'_> {
    /// Every metric's value when document `i` has grade `grades[i]`.
    fn score(&self, grades: &[Grade], scratch: &mut Scratch, out: &mut [f64]) {
        scratch.ranked.clear();
        scratch.ranked.extend(
            self.template
                .ranks
                .iter()
                .map(|d| d.map_or(Judgement::UNJUDGED, |d| Judgement::judged(grades[d]))),
        );
        scratch.ideal.clear();
        scratch.ideal.extend_from_slice(grades);
        scratch.ideal.sort_by(|a, b| b.total_cmp(a));
        let mut judged = JudgedRanking::new(
            &scratch.ranked,
            self.template.retrieved,
            &scratch.ideal,
            self.template.level,
        );
        if !self.template.tie_ends.is_empty() {
            judged = judged.with_tie_groups(&self.template.tie_ends);
        }
        score_judged(&judged, self.metrics, self.options.ties, out);
    }

    /// Every metric's expectation for this query.
    fn expectations(&self, settings: &ExpectedSettings, query: &str) -> Vec<QueryExpectation> {
        let width = self.metrics.len();
        let mut scratch = Scratch::default();
        let base: Vec<Grade> = self.support.iter().map(|s| s[0].0).collect();
        let likely: Vec<Grade> = self.support.iter().map(|s| most_likely(s)).collect();
        let mut at_base = vec![0.0; width];
        self.score(&base, &mut scratch, &mut at_base);
        let mut at_likely = vec![0.0; width];
        self.score(&likely, &mut scratch, &mut at_likely);
        let uncertain: Vec<usize> = (0..self.support.len())
            .filter(|&i| self.support[i].len() > 1)
            .collect();

        // Additive: the base value plus each change of one grade.
        let mut additive = at_base.clone();
        if self.additive.iter().any(|&a| a) {
            let mut grades = base.clone();
            let mut changed = vec![0.0; width];
            for &i in &uncertain {
                for &(grade, p) in &self.support[i][1..] {
                    grades[i] = grade;
                    self.score(&grades, &mut scratch, &mut changed);
                    for (sum, (&c, &b)) in additive.iter_mut().zip(changed.iter().zip(&at_base)) {
                        *sum += p * (c - b);
                    }
                }
                grades[i] = base[i];
            }
        }
        let others = self.additive.iter().any(|&a| !a);
        let combinations = uncertain.iter().try_fold(1usize, |n, &i| {
            n.checked_mul(self.support[i].len())
                .filter(|&n| n <= settings.enumeration_limit)
        });
        let (values, errors, method) = match combinations {
            _ if !others => (vec![0.0; width], vec![0.0; width], Method::Enumerated),
            Some(_) => (
                self.enumerate(&base, &uncertain, &mut scratch),
                vec![0.0; width],
                Method::Enumerated,
            ),
            None => {
                let (mean, error) = self.sample(&base, &uncertain, settings, query, &mut scratch);
                (mean, error, Method::Sampled)
            }
        };
        (0..width)
            .map(|m| {
                if self.additive[m] {
                    QueryExpectation {
                        expected: additive[m],
                        standard_error: 0.0,
                        most_likely: at_likely[m],
                        method: Method::Additive,
                    }
                } else {
                    QueryExpectation {
                        expected: values[m],
                        standard_error: errors[m],
                        most_likely: at_likely[m],
                        method,
                    }
                }
            })
            .collect()
    }

    /// The exact expectation over every labelling of the uncertain
    /// documents (an odometer over their supports).
    fn enumerate(&self, base: &[Grade], uncertain: &[usize], scratch: &mut Scratch) -> Vec<f64> {
        let width = self.metrics.len();
        let mut grades = base.to_vec();
        let mut digits = vec![0usize; uncertain.len()];
        let mut sums = vec![0.0; width];
        let mut values = vec![0.0; width];
        loop {
            let probability: f64 = uncertain
                .iter()
                .zip(&digits)
                .map(|(&i, &d)| self.support[i][d].1)
                .product();
            for (&i, &d) in uncertain.iter().zip(&digits) {
                grades[i] = self.support[i][d].0;
            }
            self.score(&grades, scratch, &mut values);
            for (sum, v) in sums.iter_mut().zip(&values) {
                *sum += probability * v;
            }
            // The next labelling; done when every digit wrapped.
            let mut place = 0;
            loop {
                if place == digits.len() {
                    return sums;
                }
                digits[place] += 1;
                if digits[place] < self.support[uncertain[place]].len() {
                    break;
                }
                digits[place] = 0;
                place += 1;
            }
        }
    }

    /// The Monte Carlo mean and its standard error per metric.
    fn sample(
        &self,
        base: &[Grade],
        uncertain: &[usize],
        settings: &ExpectedSettings,
        query: &str,
        scratch: &mut Scratch,
    ) -> (Vec<f64>, Vec<f64>) {
        let width = self.metrics.len();
        let mut rng = chunk_rng(settings.seed, spark_xxhash64(query.as_bytes()) as u64);
        let mut grades = base.to_vec();
        let mut values = vec![0.0; width];
        // Welford's running mean and sum of squared deviations.
        let mut mean = vec![0.0; width];
        let mut squares = vec![0.0; width];
        let samples = settings.samples.max(1);
        for n in 1..=samples {
            for &i in uncertain {
                grades[i] = draw(&self.support[i], uniform(&mut rng));
            }
            self.score(&grades, scratch, &mut values);
            for m in 0..width {
                let delta = values[m] - mean[m];
                mean[m] += delta / n as f64;
                squares[m] += delta * (values[m] - mean[m]);
            }
        }
        let errors = squares
            .iter()
            .map(|&s| {
                if samples > 1 {
                    (s / (samples - 1) as f64 / samples as f64).sqrt()
                } else {
                    f64::NAN
                }
            })
            .collect();
        (mean, errors)
    }
}

/// A uniform number in [0, 1) from 53 random bits.
fn uniform(rng: &mut impl Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The grade whose cumulative probability first exceeds `u` (the last
/// grade if rounding leaves `u` beyond the total).
fn draw(support: &[(Grade, f64)], u: f64) -> Grade {
    let mut cumulative = 0.0;
    for &(grade, p) in support {
        cumulative += p;
        if u < cumulative {
            return grade;
        }
    }
    support.last().map_or(0.0, |&(g, _)| g)
}

/// Each metric's means over the queries, its standard error and methods.
fn summarize(metrics: &[Box<dyn Metric>], queries: &[ExpectedQuery]) -> Vec<ExpectedMetric> {
    metrics
        .iter()
        .enumerate()
        .map(|(m, metric)| {
            let column = |f: fn(&QueryExpectation) -> f64| -> Vec<f64> {
                queries.iter().map(|q| f(&q.values[m])).collect()
            };
            let count = |method: Method| {
                queries
                    .iter()
                    .filter(|q| q.values[m].method == method)
                    .count()
            };
            let n = queries.len();
            let squared: f64 = queries
                .iter()
                .map(|q| q.values[m].standard_error.powi(2))
                .sum();
            ExpectedMetric {
                metric: metric.name(),
                expected: if n == 0 {
                    f64::NAN
                } else {
                    fmean(&column(|v| v.expected))
                },
                standard_error: if n == 0 {
                    f64::NAN
                } else {
                    squared.sqrt() / n as f64
                },
                most_likely: if n == 0 {
                    f64::NAN
                } else {
                    fmean(&column(|v| v.most_likely))
                },
                additive: count(Method::Additive),
                enumerated: count(Method::Enumerated),
                sampled: count(Method::Sampled),
            }
        })
        .collect()
}

/// Queries by name, for the tests and callers that look one up.
impl ExpectedRun {
    /// The expectations of `query`, if it was evaluated.
    pub fn query(&self, query: &str) -> Option<&ExpectedQuery> {
        self.queries.iter().find(|q| q.query == query)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use rankeval_core::registry::parse_metric;
    use rankeval_core::{Duplicates, RunBuilder};

    use super::*;
    use crate::engine::evaluate;

    /// One `(query, doc, [p(0), p(1), p(2)])` per judged document.
    type Rows<'a> = &'a [(&'a str, &'a str, [f64; 3])];

    fn labels(rows: Rows<'_>) -> Result<LabelDistributions, LabelsError> {
        let columns: Vec<(Grade, Qrels)> = (0..3)
            .map(|g| {
                let mut b = QrelsBuilder::new();
                for (q, d, p) in rows {
                    b.push(*q, *d, p[g]).unwrap();
                }
                (g as Grade, b.finish().unwrap())
            })
            .collect();
        let borrowed: Vec<(Grade, &Qrels)> = columns.iter().map(|(g, q)| (*g, q)).collect();
        LabelDistributions::from_columns(&borrowed)
    }

    fn run(lists: &[(&str, &[&str])]) -> Run {
        let mut b = RunBuilder::new();
        for (q, docs) in lists {
            for (i, d) in docs.iter().enumerate() {
                b.push_scored(*q, *d, 100.0 - i as f64).unwrap();
            }
        }
        b.finish(Duplicates::Error).unwrap()
    }

    fn metrics(specs: &[&str]) -> Vec<Box<dyn Metric>> {
        specs.iter().map(|s| parse_metric(s).unwrap()).collect()
    }

    const SPECS: &[&str] = &[
        "p@2",
        "dcg@3",
        "rbp(p=0.8)",
        "num_rel",
        "ndcg@3",
        "ap",
        "rr",
        "recall@2",
        "err@3",
        "bpref",
        "success@1",
    ];

    const ROWS: Rows<'static> = &[
        ("q1", "a", [0.5, 0.5, 0.0]),
        ("q1", "b", [0.0, 1.0, 0.0]),
        ("q1", "c", [0.2, 0.3, 0.5]),
        ("q1", "z", [0.1, 0.0, 0.9]),
        ("q2", "x", [0.7, 0.2, 0.1]),
        ("q2", "y", [0.25, 0.25, 0.5]),
    ];

    fn lists() -> Run {
        run(&[("q1", &["a", "b", "u", "c"]), ("q2", &["u", "y", "x"])])
    }

    fn report(settings: &ExpectedSettings) -> ExpectedReport {
        let run = lists();
        expected(
            &labels(ROWS).unwrap(),
            &[("r".to_owned(), &run)],
            &metrics(SPECS),
            &Options::default(),
            settings,
        )
        .unwrap()
    }

    fn value(report: &ExpectedReport, query: &str, metric: &str) -> QueryExpectation {
        let m = report.metrics.iter().position(|n| n == metric).unwrap();
        report.runs[0].query(query).unwrap().values[m]
    }

    /// Worked by hand: `a` relevant with probability 1/2 at rank 1, `b`
    /// surely relevant at rank 2.
    #[test]
    fn hand_worked_values() {
        let rows: Rows<'_> = &[("q", "a", [0.5, 0.5, 0.0]), ("q", "b", [0.0, 1.0, 0.0])];
        let run = run(&[("q", &["a", "b"])]);
        let report = expected(
            &labels(rows).unwrap(),
            &[("r".to_owned(), &run)],
            &metrics(&["p@2", "rr", "ap", "num_rel"]),
            &Options::default(),
            &ExpectedSettings::default(),
        )
        .unwrap();
        let get = |m: &str| value(&report, "q", m);
        // (1/2 + 1) / 2
        assert_eq!(get("p@2").expected, 0.75);
        assert_eq!(get("p@2").method, Method::Additive);
        // 1/2 * 1 + 1/2 * 1/2
        assert_eq!(get("rr").expected, 0.75);
        assert_eq!(get("rr").method, Method::Enumerated);
        // a relevant: (1/1 + 2/2) / 2 = 1; a not: (1/2) / 1
        assert_eq!(get("ap").expected, 0.75);
        assert_eq!(get("num_rel").expected, 1.5);
        // The most likely grade of `a` is the lower of two equally likely: 0.
        assert_eq!(get("rr").most_likely, 0.5);
    }

    /// With every probability 0 or 1 the expectation is the metric on
    /// those grades, bit for bit, for every metric.
    #[test]
    fn certain_labels_give_eval_values() {
        let rows: Vec<(&str, &str, [f64; 3])> = ROWS
            .iter()
            .map(|&(q, d, p)| {
                let g = most_likely(&[(0.0, p[0]), (1.0, p[1]), (2.0, p[2])]) as usize;
                let mut one = [0.0; 3];
                one[g] = 1.0;
                (q, d, one)
            })
            .collect();
        let labels = labels(&rows).unwrap();
        let hard = labels.most_likely().unwrap();
        let run = lists();
        let metrics = metrics(SPECS);
        let report = expected(
            &labels,
            &[("r".to_owned(), &run)],
            &metrics,
            &Options::default(),
            &ExpectedSettings::default(),
        )
        .unwrap();
        let eval = evaluate(&hard, &run, &metrics, &Options::default());
        for (qi, query) in eval.queries().iter().enumerate() {
            for (m, name) in report.metrics.iter().enumerate() {
                let got = report.runs[0].query(query).unwrap().values[m];
                let want = eval.value(qi, m);
                assert_eq!(got.expected.to_bits(), want.to_bits(), "{query} {name}");
                assert_eq!(got.most_likely.to_bits(), want.to_bits(), "{query} {name}");
            }
        }
    }

    /// The additive shortcut equals enumeration for the additive metrics,
    /// and Monte Carlo is within 5 standard errors of the exact value.
    #[test]
    fn the_three_methods_agree() {
        let exact = report(&ExpectedSettings::default());
        let sampled = report(&ExpectedSettings {
            samples: 20_000,
            seed: 7,
            enumeration_limit: 0,
        });
        for query in ["q1", "q2"] {
            for name in &exact.metrics {
                let e = value(&exact, query, name);
                let s = value(&sampled, query, name);
                if e.method == Method::Additive {
                    assert_eq!(s.method, Method::Additive);
                    assert_eq!(e.expected.to_bits(), s.expected.to_bits());
                    continue;
                }
                assert_eq!(e.method, Method::Enumerated, "{query} {name}");
                assert_eq!(s.method, Method::Sampled, "{query} {name}");
                if s.standard_error == 0.0 {
                    // Every draw gave one value: the exact one.
                    assert_eq!(s.expected, e.expected, "{query} {name}");
                }
                assert!(
                    (s.expected - e.expected).abs() <= 5.0 * s.standard_error,
                    "{query} {name}: sampled {} ± {}, exact {}",
                    s.expected,
                    s.standard_error,
                    e.expected
                );
            }
        }
        // Enumerating the additive metrics too gives their shortcut's value.
        let labels = labels(ROWS).unwrap();
        let positions = labels.positions().unwrap();
        let run = lists();
        let metrics = metrics(&["p@2", "dcg@3", "rbp(p=0.8)", "num_rel"]);
        let options = Options::default();
        for (qi, query) in labels.queries.iter().enumerate() {
            let mut judge = judge_for(judged_depth(&metrics), &options, &metrics);
            let list = run.list(query.name.as_str());
            let judged = judge.judge(&positions, qi as u32, list);
            let template = Template::new(&judged, false);
            let scorer = |additive: &'static [bool]| {
                QueryScorer {
                    template: &template,
                    support: &query.support,
                    metrics: &metrics,
                    options: &options,
                    additive,
                }
                .expectations(&ExpectedSettings::default(), &query.name)
            };
            let shortcut = scorer(&[true; 4]);
            let enumerated = scorer(&[false; 4]);
            for (a, b) in shortcut.iter().zip(&enumerated) {
                assert_eq!(a.method, Method::Additive);
                assert_eq!(b.method, Method::Enumerated);
                assert!((a.expected - b.expected).abs() < 1e-12, "{a:?} {b:?}");
            }
        }
    }

    /// The draws depend on the seed and the query id, not on the order of
    /// the input: reversed labels give the same bits.
    #[test]
    fn draws_do_not_depend_on_order() {
        let settings = ExpectedSettings {
            samples: 500,
            seed: 3,
            enumeration_limit: 0,
        };
        let forward = report(&settings);
        let reversed_rows: Vec<_> = ROWS.iter().rev().copied().collect();
        let run = lists();
        let reversed = expected(
            &labels(&reversed_rows).unwrap(),
            &[("r".to_owned(), &run)],
            &metrics(SPECS),
            &Options::default(),
            &settings,
        )
        .unwrap();
        for query in ["q1", "q2"] {
            for name in &forward.metrics {
                let (a, b) = (value(&forward, query, name), value(&reversed, query, name));
                assert_eq!(a.expected.to_bits(), b.expected.to_bits(), "{query} {name}");
            }
        }
        let other_seed = report(&ExpectedSettings {
            seed: 4,
            ..settings
        });
        assert_ne!(
            value(&forward, "q1", "ndcg@3").expected,
            value(&other_seed, "q1", "ndcg@3").expected
        );
    }

    #[test]
    fn bad_distributions_are_named() {
        let e = labels(&[("q", "a", [0.5, 0.4, 0.0])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "query `q`, document `a`: the probabilities sum to 0.9, not 1 (within 0.000001)"
        );
        let e = labels(&[("q", "a", [1.5, -0.5, 0.0])]).unwrap_err();
        assert!(
            e.to_string()
                .contains("probability 1.5 of grade 0 is not in [0, 1]"),
            "{e}"
        );
        assert_eq!(
            LabelDistributions::from_columns(&[]).unwrap_err(),
            LabelsError::NoColumns
        );
    }

    /// A document with a probability in a later column but none in the
    /// first is named, not dropped; ids in messages are cut.
    #[test]
    fn a_document_missing_from_the_first_column_is_named() {
        let qrels = |rows: &[(&str, &str, f64)]| {
            let mut b = QrelsBuilder::new();
            for (q, d, p) in rows {
                b.push(*q, *d, *p).unwrap();
            }
            b.finish().unwrap()
        };
        let first = qrels(&[("q", "a", 1.0)]);
        let second = qrels(&[("q", "a", 0.0), ("q", "b", 1.0)]);
        let e = LabelDistributions::from_columns(&[(0.0, &first), (1.0, &second)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "query `q`, document `b`: no probability for grade 0"
        );
        let other = qrels(&[("q", "a", 0.0), ("r", "c", 1.0)]);
        let e = LabelDistributions::from_columns(&[(0.0, &first), (1.0, &other)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "query `r`, document `c`: no probability for grade 0"
        );
        let long = "x".repeat(1000);
        let e = labels(&[("q", long.as_str(), [0.5, 0.4, 0.0])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "query `q`, document `{}… (1000 bytes)`: the probabilities sum to 0.9, not 1 \
                 (within 0.000001)",
                "x".repeat(64)
            )
        );
    }

    /// Settings that would let a query enumerate or draw without end are
    /// refused before anything is scored, naming the bound.
    #[test]
    fn settings_past_their_bounds_are_refused() {
        let run = lists();
        let labels = labels(ROWS).unwrap();
        let metrics = metrics(&["ndcg@3"]);
        let runs = [("r".to_owned(), &run)];
        let with = |settings: ExpectedSettings| {
            expected(&labels, &runs, &metrics, &Options::default(), &settings)
        };
        let e = with(ExpectedSettings {
            enumeration_limit: usize::MAX,
            ..ExpectedSettings::default()
        })
        .unwrap_err();
        assert_eq!(
            e,
            LabelsError::Settings(SettingsError::EnumerationLimit { limit: usize::MAX })
        );
        assert!(e.to_string().contains("at most 1048576 labellings"), "{e}");
        let e = with(ExpectedSettings {
            samples: usize::MAX,
            ..ExpectedSettings::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("to 10000000, not"), "{e}");
        assert!(
            with(ExpectedSettings {
                samples: 1,
                ..ExpectedSettings::default()
            })
            .is_err()
        );
        assert!(
            with(ExpectedSettings {
                enumeration_limit: MAX_ENUMERATION_LIMIT,
                samples: 100,
                ..ExpectedSettings::default()
            })
            .is_ok()
        );
    }

    /// A query whose labellings outnumber `usize` (2^70 here) is counted
    /// without overflow and sampled, whatever the enumeration limit.
    #[test]
    fn a_labelling_count_past_usize_is_sampled() {
        let docs: Vec<String> = (0..70).map(|i| format!("d{i:02}")).collect();
        let rows: Vec<(&str, &str, [f64; 3])> = docs
            .iter()
            .map(|d| ("q", d.as_str(), [0.5, 0.5, 0.0]))
            .collect();
        let labels = labels(&rows).unwrap();
        let ranked: Vec<&str> = docs.iter().map(String::as_str).collect();
        let run = run(&[("q", &ranked)]);
        let report = expected(
            &labels,
            &[("r".to_owned(), &run)],
            &metrics(&["ndcg@10"]),
            &Options::default(),
            &ExpectedSettings {
                samples: 50,
                seed: 1,
                enumeration_limit: MAX_ENUMERATION_LIMIT,
            },
        )
        .unwrap();
        assert_eq!(value(&report, "q", "ndcg@10").method, Method::Sampled);
    }

    /// A query the run lacks is skipped, or scored on an empty list with
    /// `missing = zero` (its expected num_rel still counts).
    #[test]
    fn missing_queries_follow_the_option() {
        let run = run(&[("q1", &["a"])]);
        let labels = labels(ROWS).unwrap();
        let metrics = metrics(&["num_rel"]);
        let runs = [("r".to_owned(), &run)];
        let skip = expected(
            &labels,
            &runs,
            &metrics,
            &Options::default(),
            &ExpectedSettings::default(),
        )
        .unwrap();
        assert_eq!(skip.runs[0].queries.len(), 1);
        assert_eq!(
            skip.runs[0].missing,
            QuerySample {
                count: 1,
                first: vec!["q2".to_owned()],
            }
        );
        let zero = Options {
            missing: Missing::Zero,
            ..Options::default()
        };
        let all = expected(
            &labels,
            &runs,
            &metrics,
            &zero,
            &ExpectedSettings::default(),
        )
        .unwrap();
        // q2: x relevant with 0.3, y with 0.75.
        assert_eq!(
            all.runs[0].query("q2").unwrap().values[0].expected,
            0.3 + 0.75
        );
    }
}
