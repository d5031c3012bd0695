//! `rankeval explain`: one query's ranked list as the metrics see it, and
//! each metric's own account of its value ([`Metric::explain`]).
//!
//! The list is the run's, after ordering (score descending, ties by
//! document id descending) and the `duplicates` policy; it is judged by the
//! same [`Judge`] the engine uses, so each value is the one `eval` reports
//! for the query, bit for bit (a test checks every metric). The text,
//! Markdown and JSON renderings are `rankeval_report::explain`'s.

use rankeval_core::ties::explain_average;
use rankeval_core::{Explanation, Grade, Judge, Metric, Qrels, Run, SampledRun, Ties};
use serde::Serialize;

use crate::engine::{Missing, Options, SampledQuery, averages};

/// One query explained by one or more metrics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryExplanation {
    /// The query id.
    pub query: String,
    /// The run's name.
    pub run: String,
    /// The ranked list as the metrics read it.
    pub ranking: Ranking,
    /// Per metric, in the order given.
    pub metrics: Vec<Explanation>,
    /// Where and why the metrics' values differ, when there are several.
    pub differences: Option<String>,
    /// For a sampled run (`--samples`), each sample with the rank of every
    /// document of [`ranking`](Self::ranking) in it; the ranking then lists
    /// the documents of all the samples, in order of first appearance, and
    /// the metrics' columns are per document. Empty for one ranked list.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<SampleRanks>,
}

/// One sampled ranking of a query, as `explain --samples` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampleRanks {
    /// The sample's id, as the run names it.
    pub sample: String,
    /// The rank (from 1) of each document of the explanation's ranking in
    /// this sample; `None` where the sample does not retrieve it.
    pub ranks: Vec<Option<usize>>,
}

/// A ranked list with its judgements, one entry per rank (arrays, so JSON
/// holds one array per column).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ranking {
    /// The documents, best first.
    pub documents: Vec<String>,
    /// Their scores (`None` for a list given already ranked).
    pub scores: Vec<Option<f64>>,
    /// Their grades (`None`: not in the qrels, grade 0 for every metric).
    pub grades: Vec<Option<Grade>>,
    /// Every grade the qrels give the query, best first (the ideal ranking).
    pub ideal_grades: Vec<Grade>,
}

/// Why a query cannot be explained.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExplainError {
    /// The query has no judgements: `eval` does not evaluate it.
    #[error(
        "query `{query}` has no judgements in {qrels}, so no metric is computed for it{}",
        similar_hint(.similar)
    )]
    NotJudged {
        /// The query.
        query: String,
        /// The qrels, as named by the user.
        qrels: String,
        /// Judged queries with a similar id.
        similar: Vec<String>,
    },
    /// The query is judged but not in the run, and missing queries are skipped.
    #[error(
        "query `{query}` is not in the run {run}: eval leaves it out (with --missing zero it \
         scores 0 on an empty list)"
    )]
    NotInRun {
        /// The query.
        query: String,
        /// The run's name.
        run: String,
    },
}

fn similar_hint(similar: &[String]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(
            " (judged queries like it: {})",
            similar
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Explains `query` of `run` (named `run_name`) against `qrels` (named
/// `qrels_name`) with each of `metrics`.
pub fn explain(
    qrels: &Qrels,
    qrels_name: &str,
    run: &Run,
    run_name: &str,
    query: &str,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Result<QueryExplanation, ExplainError> {
    let q = judged_query(qrels, qrels_name, query)?;
    let (counted, _) = options.counted(run);
    let list = counted.list(query).map(|list| options.retrieved(list));
    if list.is_none() && options.missing == Missing::Skip {
        return Err(ExplainError::NotInRun {
            query: query.to_owned(),
            run: run_name.to_owned(),
        });
    }
    // The whole list: every metric reads its own top k of it, as in eval.
    let mut judge =
        Judge::new(None, options.level).with_ties(options.ties, averages(metrics, options.ties));
    let judged = judge.judge(qrels, q, list);
    let mut ranking = Ranking {
        ideal_grades: judged.ideal_grades().to_vec(),
        ..Ranking::default()
    };
    if let Some(list) = list {
        for (i, judgement) in judged.ranked().iter().enumerate() {
            ranking
                .documents
                .push(String::from_utf8_lossy(list.doc(i)).into_owned());
            ranking.scores.push(list.score(i));
            ranking
                .grades
                .push(judgement.is_judged().then(|| judgement.grade()));
        }
    }
    // With `ties = average`, a metric without a `ties` of its own is
    // explained by its expected value and the tie groups.
    let explanations: Vec<Explanation> = metrics
        .iter()
        .map(|m| match (options.ties, m.ties()) {
            (Ties::Average, None) => explain_average(m.as_ref(), m.name(), &judged),
            _ => m.explain(&judged),
        })
        .collect();
    let differences = differences(&explanations, ranking.documents.len());
    Ok(QueryExplanation {
        query: query.to_owned(),
        run: run_name.to_owned(),
        ranking,
        metrics: explanations,
        differences,
        samples: Vec::new(),
    })
}

/// Explains `query` of the sampled run `run` (several rankings per query,
/// `--samples`) with each of `metrics`: the query's samples are judged as
/// `eval --samples` judges them (`engine::evaluate_sampled`), and each
/// metric explains its value over them ([`Metric::explain_samples`]), the
/// value `eval --samples` reports, bit for bit.
pub fn explain_sampled(
    qrels: &Qrels,
    qrels_name: &str,
    run: &SampledRun,
    run_name: &str,
    query: &str,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Result<QueryExplanation, ExplainError> {
    let q = judged_query(qrels, qrels_name, query)?;
    let Some(lists) = run.samples(query.as_bytes()) else {
        if options.missing == Missing::Skip {
            return Err(ExplainError::NotInRun {
                query: query.to_owned(),
                run: run_name.to_owned(),
            });
        }
        // Missing and scored as an empty list, as eval scores it (an empty
        // run: the sampled run's inner lists are keyed by number, not by
        // query).
        let empty = rankeval_core::RunBuilder::new()
            .finish(rankeval_core::Duplicates::Error)
            .map_err(|_| ExplainError::NotInRun {
                query: query.to_owned(),
                run: run_name.to_owned(),
            })?;
        return explain(qrels, qrels_name, &empty, run_name, query, metrics, options);
    };
    let mut judge = crate::engine::judge_for(None, options, metrics);
    let mut one = SampledQuery::default();
    for &list in lists {
        one.add(&mut judge, qrels, q, run, list, options);
    }
    let documents = one.documents();
    let ranking = Ranking {
        documents: documents
            .iter()
            .map(|(doc, _)| String::from_utf8_lossy(doc).into_owned())
            .collect(),
        scores: vec![None; documents.len()],
        grades: documents
            .iter()
            .map(|(_, j)| j.is_judged().then(|| j.grade()))
            .collect(),
        ideal_grades: one.ideal().to_vec(),
    };
    let samples = lists
        .iter()
        .zip(one.numbers())
        .map(|(&list, numbers)| {
            let mut ranks = vec![None; documents.len()];
            for (i, &n) in numbers.iter().enumerate() {
                if let Some(slot) = ranks.get_mut(n as usize) {
                    *slot = Some(i + 1);
                }
            }
            SampleRanks {
                sample: String::from_utf8_lossy(run.sample_id(list).unwrap_or_default())
                    .into_owned(),
                ranks,
            }
        })
        .collect();
    let explanations: Vec<Explanation> = one.with_samples(qrels, |samples| {
        metrics.iter().map(|m| m.explain_samples(samples)).collect()
    });
    let differences = differences(&explanations, ranking.documents.len());
    Ok(QueryExplanation {
        query: query.to_owned(),
        run: run_name.to_owned(),
        ranking,
        metrics: explanations,
        differences,
        samples,
    })
}

/// The index of `query` in `qrels`, or why it cannot be explained.
fn judged_query(qrels: &Qrels, qrels_name: &str, query: &str) -> Result<u32, ExplainError> {
    qrels.query_index(query.as_bytes()).ok_or_else(|| {
        let mut similar: Vec<String> = qrels
            .queries()
            .filter(|name| strsim_like(name, query))
            .map(str::to_owned)
            .collect();
        similar.sort();
        similar.truncate(5);
        ExplainError::NotJudged {
            query: query.to_owned(),
            qrels: qrels_name.to_owned(),
            similar,
        }
    })
}

/// Query ids close to `query`: same id ignoring case, or one contains the other.
fn strsim_like(name: &str, query: &str) -> bool {
    let (a, b) = (name.to_lowercase(), query.to_lowercase());
    !b.is_empty() && (a == b || a.contains(&b) || b.contains(&a))
}

/// One line: each metric's value, the ranks it reads and what it divides
/// by, when there are several metrics and their values differ.
fn differences(explanations: &[Explanation], ranks: usize) -> Option<String> {
    if explanations.len() < 2 {
        return None;
    }
    let first = explanations[0].value;
    let same = explanations
        .iter()
        .all(|e| e.value.to_bits() == first.to_bits());
    let parts: Vec<String> = explanations
        .iter()
        .map(|e| {
            let read = match e.depth {
                Some(k) if k < ranks => format!("ranks 1-{k}"),
                _ => format!("all {ranks} ranks"),
            };
            let mut part = format!(
                "{} = {} reads {read}",
                e.metric,
                rankeval_core::explain::number(e.value)
            );
            if let Some(normalizer) = &e.normalizer {
                part.push_str(", ");
                part.push_str(normalizer);
            }
            part
        })
        .collect();
    Some(format!(
        "{}: {}",
        if same {
            "The values agree"
        } else {
            "Where they differ"
        },
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_ids_ignore_case_and_containment() {
        assert!(strsim_like("Q1", "q1"));
        assert!(strsim_like("q10", "q1"));
        assert!(!strsim_like("q2", "q1"));
    }
}
