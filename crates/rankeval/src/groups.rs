//! Results per group of queries (slices, `--groups`): each run's
//! aggregates over the queries of every group of every group column of a
//! groups file ([`QueryGroups`]), computed as the whole run's are (the
//! same aggregators, intervals included), so that a group's mean is the
//! mean of its queries' values in report order.

use std::collections::{HashMap, HashSet};

use rankeval_core::{Aggregator, shorten_id};

use crate::read::QueryGroups;
use crate::report::{GroupResult, MetricColumn, ReportWarning, RunWarning, aggregate_run};

/// How many queries a warning names.
const EXAMPLES: usize = 5;

/// Run `run`'s results on every group of `groups` (read from the file
/// called `file`): `queries` and `per_query[m]` as [`crate::report::RunResult`]
/// holds them. Groups of a column come in byte order of their values (by
/// number when every value of the column is a number: turns 1, 2, 10);
/// evaluated queries in no group of a column are counted in a warning, as
/// are groups whose intervals could not be computed.
pub fn group_results(
    run: &str,
    queries: &[String],
    per_query: &[Vec<f64>],
    metrics: &[MetricColumn],
    aggregators: &[Box<dyn Aggregator>],
    groups: &QueryGroups,
    file: &str,
) -> (Vec<GroupResult>, Vec<RunWarning>) {
    let mut results = Vec::new();
    let mut warnings = Vec::new();
    for (c, column) in groups.columns().iter().enumerate() {
        let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut without = Vec::new();
        for (q, query) in queries.iter().enumerate() {
            match groups.value(query, c) {
                Some(value) => members.entry(value).or_default().push(q),
                None => without.push(q),
            }
        }
        if !without.is_empty() {
            warnings.push(RunWarning {
                run: run.to_owned(),
                warning: ReportWarning::QueriesWithoutGroup {
                    groups: file.to_owned(),
                    column: column.clone(),
                    count: without.len(),
                    examples: without
                        .iter()
                        .take(EXAMPLES)
                        .map(|&q| shorten_id(queries[q].as_bytes()))
                        .collect(),
                },
            });
        }
        for value in group_order(members.keys().copied()) {
            let rows = &members[value];
            let columns: Vec<Vec<f64>> = per_query
                .iter()
                .map(|values| rows.iter().map(|&q| values[q]).collect())
                .collect();
            let label = format!("{run} [{column}={value}]");
            let aggregates = aggregate_run(&label, metrics, &columns, aggregators);
            warnings.extend(aggregates.warnings);
            results.push(GroupResult {
                column: column.clone(),
                value: value.to_owned(),
                queries: rows.iter().map(|&q| queries[q].clone()).collect(),
                aggregates: aggregates.values,
                intervals: aggregates.intervals,
            });
        }
    }
    (results, warnings)
}

/// What of the groups file `groups` (read from `file`) run `run`'s
/// evaluated queries `evaluated` do not reach, so that none of it is
/// dropped unsaid: the listed queries that were not evaluated (counted,
/// the first few in byte order) and the groups left with no evaluated
/// query (counted, the first few as `column=value`), a warning each.
pub fn unevaluated_warnings(
    run: &str,
    evaluated: &[String],
    groups: &QueryGroups,
    file: &str,
) -> Vec<RunWarning> {
    let reached: HashSet<&str> = evaluated
        .iter()
        .map(String::as_str)
        .filter(|q| groups.contains(q))
        .collect();
    if reached.len() == groups.len() {
        return Vec::new();
    }
    let mut missing: Vec<&str> = groups.queries().filter(|q| !reached.contains(q)).collect();
    missing.sort_unstable();
    let mut warnings = vec![RunWarning {
        run: run.to_owned(),
        warning: ReportWarning::GroupQueriesNotEvaluated {
            groups: file.to_owned(),
            count: missing.len(),
            examples: missing
                .iter()
                .take(EXAMPLES)
                .map(|q| shorten_id(q.as_bytes()))
                .collect(),
        },
    }];
    let mut count = 0;
    let mut examples = Vec::new();
    for (c, column) in groups.columns().iter().enumerate() {
        let kept: HashSet<&str> = reached.iter().filter_map(|q| groups.value(q, c)).collect();
        let lost: HashSet<&str> = missing
            .iter()
            .filter_map(|q| groups.value(q, c))
            .filter(|v| !kept.contains(v))
            .collect();
        count += lost.len();
        for value in group_order(lost.into_iter()) {
            if examples.len() == EXAMPLES {
                break;
            }
            examples.push(format!(
                "{}={}",
                shorten_id(column.as_bytes()),
                shorten_id(value.as_bytes())
            ));
        }
    }
    if count > 0 {
        warnings.push(RunWarning {
            run: run.to_owned(),
            warning: ReportWarning::GroupsWithoutQueries {
                groups: file.to_owned(),
                count,
                examples,
            },
        });
    }
    warnings
}

/// The groups of conversational queries: each query id `CONVERSATION` +
/// `separator` + `TURN` (TREC CAsT's and iKAT's `31_4`, split at the last
/// separator) gives the columns `conversation` and `turn`, after the
/// columns of `given` (a groups file) if any. A query id without the
/// separator is in no group of either column (and counted in a warning).
pub fn conversation_groups(
    queries: &[String],
    separator: &str,
    given: Option<&QueryGroups>,
) -> Result<QueryGroups, String> {
    let mut columns: Vec<String> = given.map(|g| g.columns().to_vec()).unwrap_or_default();
    for added in [CONVERSATION_COLUMN, "turn"] {
        if columns.iter().any(|c| c == added) {
            return Err(format!(
                "the groups file has a column `{added}`, which the conversations' groups add too"
            ));
        }
    }
    let width = columns.len();
    columns.extend([CONVERSATION_COLUMN.to_owned(), "turn".to_owned()]);
    let rows = queries.iter().map(|query| {
        let mut row: Vec<String> = (0..width)
            .map(|c| {
                given
                    .and_then(|g| g.value(query, c))
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        match split_turn(query, separator) {
            Some((conversation, turn)) => {
                row.extend([conversation.to_owned(), turn.to_owned()]);
            }
            None => row.extend([String::new(), String::new()]),
        }
        (query.clone(), row)
    });
    let query_column = given.map_or("query", |g| g.query_column()).to_owned();
    QueryGroups::from_rows(query_column, columns, rows)
}

/// The group column that names each query's conversation: added by
/// `turns`, or given in a groups file (then `per_conversation` reads it).
pub const CONVERSATION_COLUMN: &str = "conversation";

/// The conversation and turn of a query id `CONVERSATION` + `separator` +
/// `TURN` (split at the last separator), if it is one.
pub fn split_turn<'a>(query: &'a str, separator: &str) -> Option<(&'a str, &'a str)> {
    query
        .rsplit_once(separator)
        .filter(|(conversation, turn)| !conversation.is_empty() && !turn.is_empty())
}

/// The conversations of a run: each conversation's values, the queries
/// that are conversations of their own, from [`collapse_conversations`].
#[derive(Clone, Debug, PartialEq)]
pub struct Conversations {
    /// The conversations, in the order their first turn comes.
    pub ids: Vec<String>,
    /// `values[m][c]`: conversation `c`'s value of metric `m`, the mean of
    /// its turns'.
    pub values: Vec<Vec<f64>>,
    /// The queries that name no conversation (an id without the separator,
    /// a query the groups file does not place), each a conversation of its
    /// own, in report order.
    pub alone: Vec<String>,
}

/// Each conversation's values: the queries `queries` (turns) with their
/// values `per_query[m]` collapsed into one value per conversation, the
/// mean of its turns' (exact sums), conversations in the order their first
/// turn comes. `conversation_of` names a query's conversation (from its id,
/// [`split_turn`], or a groups file's `conversation` column); a query it
/// gives none is a conversation of its own, listed in
/// [`Conversations::alone`] for a warning. The unit of every aggregate and
/// comparison is then the conversation (`--per-conversation`).
///
/// Error: a query that is a conversation of its own has the name of
/// another conversation (`31` beside `31_1`): the two would be one unit.
pub fn collapse_conversations<'a>(
    queries: &'a [String],
    per_query: &[Vec<f64>],
    conversation_of: impl Fn(&'a str) -> Option<&'a str>,
) -> Result<Conversations, String> {
    let mut order: Vec<&str> = Vec::new();
    // Each conversation's turns, and whether it is a query of its own.
    let mut members: HashMap<&str, (Vec<usize>, bool)> = HashMap::new();
    let mut alone = Vec::new();
    for (q, query) in queries.iter().enumerate() {
        let (conversation, own) = match conversation_of(query) {
            Some(conversation) => (conversation, false),
            None => {
                alone.push(query.clone());
                (query.as_str(), true)
            }
        };
        let entry = members.entry(conversation).or_insert_with(|| {
            order.push(conversation);
            (Vec::new(), own)
        });
        if entry.1 != own {
            return Err(format!(
                "query `{}` names no conversation and so is a conversation of its own, but a \
                 conversation of that name has turns too: the two would be one; rename one",
                rankeval_core::shorten_id(conversation.as_bytes())
            ));
        }
        entry.0.push(q);
    }
    let values = per_query
        .iter()
        .map(|column| {
            order
                .iter()
                .map(|c| {
                    let turns: Vec<f64> = members[c].0.iter().map(|&q| column[q]).collect();
                    rankeval_core::exact_sum::fmean(&turns)
                })
                .collect()
        })
        .collect();
    Ok(Conversations {
        ids: order.into_iter().map(str::to_owned).collect(),
        values,
        alone,
    })
}

/// The order of a column's groups: by number when every value is one
/// (turns 1, 2, ..., 10), else in byte order (equal values side by side).
pub fn group_order<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut values: Vec<&str> = values.collect();
    let numbers: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok()).collect();
    match numbers {
        Some(numbers) if numbers.iter().all(|n| n.is_finite()) => {
            let mut keyed: Vec<(f64, &str)> = numbers.into_iter().zip(values).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
            keyed.into_iter().map(|(_, v)| v).collect()
        }
        _ => {
            values.sort_unstable();
            values
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::registry::parse_aggregator;

    #[test]
    fn conversations_and_turns_from_query_ids() {
        let queries: Vec<String> = ["31_1", "31_2", "31_10", "7_1", "plain"]
            .map(String::from)
            .to_vec();
        let groups = conversation_groups(&queries, "_", None).expect("groups");
        assert_eq!(groups.columns(), ["conversation", "turn"]);
        assert_eq!(groups.value("31_10", 0), Some("31"));
        assert_eq!(groups.value("31_10", 1), Some("10"));
        assert_eq!(groups.value("plain", 0), None);
        let per_query = vec![vec![0.1, 0.2, 0.3, 0.4, 0.5]];
        let metrics = vec![MetricColumn {
            name: "ap".into(),
            trec: None,
        }];
        let aggregators = vec![parse_aggregator("mean").expect("mean")];
        let (results, warnings) = group_results(
            "run",
            &queries,
            &per_query,
            &metrics,
            &aggregators,
            &groups,
            "query ids",
        );
        let turns: Vec<(&str, &str)> = results
            .iter()
            .map(|r| (r.column.as_str(), r.value.as_str()))
            .collect();
        // Turns by number (10 after 2), conversations by number too.
        assert_eq!(
            turns,
            [
                ("conversation", "7"),
                ("conversation", "31"),
                ("turn", "1"),
                ("turn", "2"),
                ("turn", "10")
            ]
        );
        assert_eq!(results[2].aggregates, vec![vec![(0.1 + 0.4) / 2.0]]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        // Beside a groups file's columns; a clash is an error.
        let given = QueryGroups::from_rows(
            "qid",
            vec!["segment".into()],
            [("31_1".to_owned(), vec!["tail".to_owned()])],
        )
        .expect("groups");
        let both = conversation_groups(&queries, "_", Some(&given)).expect("groups");
        assert_eq!(both.columns(), ["segment", "conversation", "turn"]);
        assert_eq!(both.value("31_1", 0), Some("tail"));
        let clash = QueryGroups::from_rows("qid", vec!["turn".into()], []).expect("groups");
        assert!(conversation_groups(&queries, "_", Some(&clash)).is_err());
    }

    #[test]
    fn conversations_collapse_to_the_mean_of_their_turns() {
        let queries: Vec<String> = ["31_1", "31_10", "31_2", "4_1", "solo"]
            .map(String::from)
            .to_vec();
        let per_query = vec![
            vec![0.1, 0.2, 0.6, 0.5, 1.0],
            vec![1.0, 0.0, 0.5, 0.25, 0.0],
        ];
        let collapsed =
            collapse_conversations(&queries, &per_query, |q| split_turn(q, "_").map(|(c, _)| c))
                .expect("no clash");
        assert_eq!(collapsed.ids, ["31", "4", "solo"]);
        assert_eq!(collapsed.values[0], [(0.1 + 0.2 + 0.6) / 3.0, 0.5, 1.0]);
        assert_eq!(collapsed.values[1], [0.5, 0.25, 0.0]);
        assert_eq!(collapsed.alone, ["solo"], "counted for the warning");
    }

    #[test]
    fn a_query_of_its_own_named_as_a_conversation_is_an_error() {
        for queries in [["31_1", "31", "4_1"], ["31", "31_1", "4_1"]] {
            let queries: Vec<String> = queries.map(String::from).to_vec();
            let per_query = vec![vec![0.1, 0.2, 0.3]];
            let error = collapse_conversations(&queries, &per_query, |q| {
                split_turn(q, "_").map(|(c, _)| c)
            })
            .expect_err("`31` and the conversation `31` would be one");
            assert!(
                error.contains("query `31` names no conversation"),
                "{error}"
            );
        }
    }

    #[test]
    fn rows_of_unevaluated_queries_and_the_groups_they_leave_empty_are_warned_of() {
        let groups = QueryGroups::from_rows(
            "query",
            vec!["segment".into(), "language".into()],
            [
                ("q1".to_owned(), vec!["head".to_owned(), "de".to_owned()]),
                ("q2".to_owned(), vec!["tail".to_owned(), "de".to_owned()]),
                ("q8".to_owned(), vec!["rare".to_owned(), "de".to_owned()]),
                ("q9".to_owned(), vec!["rare".to_owned(), "fr".to_owned()]),
                ("q7".to_owned(), vec!["tail".to_owned(), String::new()]),
            ],
        )
        .expect("groups");
        let evaluated: Vec<String> = ["q1", "q2", "q5"].map(String::from).to_vec();
        let warnings = unevaluated_warnings("run", &evaluated, &groups, "g.csv");
        let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "run `run`: 3 queries of g.csv are not evaluated (e.g. `q7`, `q8`, `q9`): they \
                 are in no group's results",
                "run `run`: 2 groups of g.csv have no evaluated query (e.g. `segment=rare`, \
                 `language=fr`): no results for them",
            ]
        );
        let all: Vec<String> = ["q1", "q2", "q7", "q8", "q9"].map(String::from).to_vec();
        assert!(unevaluated_warnings("run", &all, &groups, "g.csv").is_empty());
    }

    #[test]
    fn each_group_aggregates_its_own_queries_in_report_order() {
        let groups = QueryGroups::from_rows(
            "query",
            vec!["segment".into()],
            [
                ("q1".to_owned(), vec!["tail".to_owned()]),
                ("q2".to_owned(), vec!["head".to_owned()]),
                ("q3".to_owned(), vec!["tail".to_owned()]),
                ("q4".to_owned(), vec![String::new()]),
            ],
        )
        .expect("groups");
        let queries: Vec<String> = ["q1", "q2", "q3", "q4", "q5"].map(String::from).to_vec();
        let per_query = vec![vec![0.1, 0.2, 0.7, 0.4, 0.5]];
        let metrics = vec![MetricColumn {
            name: "ap".into(),
            trec: None,
        }];
        let aggregators = vec![parse_aggregator("mean").expect("mean")];
        let (results, warnings) = group_results(
            "run",
            &queries,
            &per_query,
            &metrics,
            &aggregators,
            &groups,
            "groups.csv",
        );
        let labels: Vec<String> = results.iter().map(GroupResult::label).collect();
        assert_eq!(labels, ["segment=head", "segment=tail"]);
        assert_eq!(results[0].aggregates, vec![vec![0.2]]);
        assert_eq!(results[1].queries, ["q1", "q3"]);
        assert_eq!(
            results[1].aggregates[0][0].to_bits(),
            ((0.1 + 0.7) / 2.0f64).to_bits()
        );
        let [warning] = warnings.as_slice() else {
            panic!("one warning: {warnings:?}");
        };
        assert_eq!(
            warning.to_string(),
            "run `run`: 2 evaluated queries have no group in column `segment` of groups.csv \
             (e.g. `q4`, `q5`): they count in the run's results, in no group's"
        );
    }
}
