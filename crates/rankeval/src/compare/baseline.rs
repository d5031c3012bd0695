//! A committed baseline: the per-query results of one run as
//! `rankeval eval|run --format json --per-query -o FILE` writes them, read
//! back so that a new run can be compared with them query by query.
//!
//! A per-query Parquet table (`query`, `run`, one float column per metric),
//! as `rankeval_rs.spark` writes it (a file, or a directory of part files),
//! reads too: the results of a Spark job compared after it.
//!
//! The files are read by the readers ([`rankeval_readers::results`]: which
//! keys and columns are read, the limits, the checks of ids and names);
//! here their errors name the file as what it is to the command: the
//! baseline of a comparison, or the results file of `rankeval report`.

use std::path::Path;

use rankeval_readers::results::{self, ResultsError};

use super::CompareRunError;

/// The per-query results of one run, read from a results file: the run's
/// name, the file, the metrics, the queries in byte order and one column of
/// values per metric ([`rankeval_readers::results::RunResults`]).
pub use rankeval_readers::results::RunResults as BaselineResults;

/// What a results file is to the command reading it, and so how its errors
/// name it: `eval --baseline FILE` reads a baseline, `rankeval report
/// RESULTS` the results it renders.
#[derive(Clone, Copy, Debug)]
enum Role {
    /// A baseline to compare with ([`CompareRunError::BaselineFile`]).
    Baseline,
    /// The results of `rankeval report` ([`CompareRunError::ResultsFile`]).
    Results,
}

impl Role {
    /// The readers' error, naming its file in this role.
    fn error(self, error: ResultsError) -> CompareRunError {
        let ResultsError { path, reason } = error;
        match self {
            Role::Baseline => CompareRunError::BaselineFile { path, reason },
            Role::Results => CompareRunError::ResultsFile { path, reason },
        }
    }
}

/// Reads the run `run` (or the file's only run, when `None`) from the
/// results file at `path`: a JSON report, or a per-query Parquet table (a
/// file, or a directory of part files). Read within the limits of an input
/// read whole (a pipe or `/dev/zero` ends in an error naming it); errors
/// call it the baseline.
pub fn read_results(path: &Path, run: Option<&str>) -> Result<BaselineResults, CompareRunError> {
    results::read_run(path, run).map_err(|e| Role::Baseline.error(e))
}

/// [`read_results`] of a JSON file's text; `source` names it in errors.
pub fn parse_results(
    text: &str,
    source: &str,
    run: Option<&str>,
) -> Result<BaselineResults, CompareRunError> {
    results::parse_json_run(text, source, run).map_err(|e| Role::Baseline.error(e))
}

/// Every run of the results file at `path` (a JSON report written with
/// `--format json --per-query`, or a per-query Parquet table), in the
/// file's order (byte order of their names for Parquet): what `rankeval
/// report` renders. Errors call it the results file; two runs of one name
/// are an error.
pub fn read_all_results(path: &Path) -> Result<Vec<BaselineResults>, CompareRunError> {
    results::read_runs(path).map_err(|e| Role::Results.error(e))
}

/// [`read_all_results`] of bytes already read (a JSON report, or a Parquet
/// file when they start with `PAR1`); `source` names them in errors.
pub fn parse_all_results(
    bytes: Vec<u8>,
    source: &str,
) -> Result<Vec<BaselineResults>, CompareRunError> {
    results::parse_runs(bytes, source).map_err(|e| Role::Results.error(e))
}

/// Record `id` of the results history `db` (the last accepted one when
/// `None`), whole, and as a baseline: the record's run, metrics and
/// per-query values, queries in byte order, named `db:DB#ID`. Errors name
/// the baseline so.
pub fn read_record(
    db: &Path,
    id: Option<i64>,
) -> Result<(rankeval_history::Record, BaselineResults), CompareRunError> {
    let source = |id: Option<i64>| match id {
        Some(id) => format!("db:{}#{id}", db.display()),
        None => format!("db:{}", db.display()),
    };
    let failed = |e: rankeval_history::HistoryError| CompareRunError::BaselineFile {
        path: source(id),
        reason: e.to_string(),
    };
    let mut history =
        rankeval_history::History::open(db, rankeval_history::Mode::Existing).map_err(failed)?;
    let record = match id {
        Some(id) => history.get(id),
        None => match history.last_accepted_of_kind(rankeval_history::RecordKind::Eval) {
            Ok(Some(id)) => history.get(id),
            Ok(None) => match history.last_accepted_id(None) {
                // Records were accepted, off-policy ones only: said so.
                Ok(Some(other)) => {
                    return Err(CompareRunError::BaselineFile {
                        path: source(None),
                        reason: format!(
                            "no evaluation's record is accepted yet (record {other}, accepted \
                             last, is an off-policy record of rankeval ope, which cannot be an \
                             evaluation's baseline); accept one with `rankeval history {} \
                             --accept ID`",
                            db.display()
                        ),
                    });
                }
                Ok(None) => Err(rankeval_history::HistoryError::NoneAccepted {
                    path: db.to_owned(),
                }),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        },
    }
    .map_err(failed)?;
    let data = &record.data;
    if data.kind() == rankeval_history::RecordKind::Ope {
        return Err(CompareRunError::BaselineFile {
            path: source(Some(record.id)),
            reason: format!(
                "record {} is an off-policy record (rankeval ope): policy `{}`'s estimates on an \
                 impression log, not per-query values of metrics over judgements; it cannot be \
                 an evaluation's baseline (give an evaluation's record, db:DB#ID)",
                record.id, data.run
            ),
        });
    }
    let mut order: Vec<usize> = (0..data.queries.len()).collect();
    order.sort_by(|&a, &b| data.queries[a].as_bytes().cmp(data.queries[b].as_bytes()));
    let results = BaselineResults {
        name: data.run.clone(),
        source: source(Some(record.id)),
        metrics: data.metrics.iter().map(|m| m.name.clone()).collect(),
        queries: order.iter().map(|&i| data.queries[i].clone()).collect(),
        per_query: data
            .metrics
            .iter()
            .map(|m| order.iter().map(|&i| m.values[i]).collect())
            .collect(),
    };
    Ok((record, results))
}

/// What differs between a history's record and the evaluation compared
/// with it: the judgements (their fingerprints, `judgements` the runs'),
/// and the definition version of each metric both have (`metrics`: the
/// evaluation's canonical names and versions). Empty when nothing does.
pub fn record_differences(
    record: &rankeval_history::Record,
    judgements: &[String],
    metrics: &[(String, u32)],
) -> Vec<String> {
    let mut differences = Vec::new();
    if judgements
        .iter()
        .any(|j| *j != record.data.qrels_fingerprint)
    {
        differences.push(format!(
            "its judgements differ from this evaluation's (fingerprint {} here, {} in the record)",
            judgements.first().map_or("", |j| j.get(..12).unwrap_or(j)),
            record
                .data
                .qrels_fingerprint
                .get(..12)
                .unwrap_or(&record.data.qrels_fingerprint)
        ));
    }
    for (name, version) in metrics {
        if let Some(column) = record.data.column(name)
            && column.definition_version != *version
        {
            differences.push(format!(
                "metric `{name}` is defined otherwise (version {version} here, {} in the record)",
                column.definition_version
            ));
        }
    }
    differences
}

/// An option that changes numbers whose value differs between a
/// history's record and the evaluation compared with it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OptionDifference {
    /// The option's key as recorded (`rel`, `ties`, `judged_only`).
    pub key: String,
    /// Its value in this evaluation; `None` when not set.
    pub here: Option<String>,
    /// Its value in the record; `None` when not set.
    pub recorded: Option<String>,
}

/// The recorded options that are not compared: `cutoffs` (every metric's
/// depth) lists which metrics each side has, and a metric's cutoff is in
/// its canonical name (`ndcg@10` is compared with `ndcg@10` only), so a
/// record with other metrics beside the shared ones is no other
/// evaluation of them.
pub const OPTIONS_NOT_COMPARED: [&str; 1] = ["cutoffs"];

/// The options that change numbers (`options`: this evaluation's, as
/// [`crate::record`] records them) whose values differ from `record`'s,
/// in key order; an option set on one side only differs too. Empty when
/// none does.
pub fn option_differences(
    record: &rankeval_history::Record,
    options: &std::collections::BTreeMap<String, String>,
) -> Vec<OptionDifference> {
    let recorded = &record.data.options;
    let keys: std::collections::BTreeSet<&String> = options.keys().chain(recorded.keys()).collect();
    keys.into_iter()
        .filter(|key| !OPTIONS_NOT_COMPARED.contains(&key.as_str()))
        .filter(|key| options.get(*key) != recorded.get(*key))
        .map(|key| OptionDifference {
            key: key.clone(),
            here: options.get(key).cloned(),
            recorded: recorded.get(key).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_RUNS: &str = r#"{"runs": [
        {"name": "bm25", "num_queries": 2, "metrics": {"ap": {"mean": 0.5}},
         "per_query": {"ap": {"q2": 0.25, "q1": 0.75}, "p@5": {"q1": 0.4, "q2": null}}},
        {"name": "dense", "per_query": {"ap": {"q1": 1.0}}}
    ], "warnings": []}"#;

    /// A record with the options `options`.
    fn record_with(options: &[(&str, &str)]) -> rankeval_history::Record {
        rankeval_history::Record {
            id: 1,
            accepted: true,
            definitions_fingerprint: String::new(),
            data: rankeval_history::RecordData {
                run: "bm25".into(),
                label: None,
                commit: None,
                rankeval_version: "0".into(),
                time_ms: 0,
                qrels_fingerprint: String::new(),
                run_hash: None,
                experiment_hash: None,
                options: options
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
                metadata: Default::default(),
                queries: Vec::new(),
                metrics: Vec::new(),
                estimates: Vec::new(),
            },
        }
    }

    #[test]
    fn options_that_differ_are_each_named_with_both_values() {
        let record = record_with(&[("rel", "1"), ("ties", "docid"), ("cutoffs", "10")]);
        let here = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert!(
            option_differences(
                &record,
                &here(&[("rel", "1"), ("ties", "docid"), ("cutoffs", "5,10")])
            )
            .is_empty(),
            "cutoffs are compared through the metrics' names"
        );
        assert_eq!(
            option_differences(
                &record,
                &here(&[("rel", "2"), ("score_threshold", "0"), ("ties", "docid")])
            ),
            [
                OptionDifference {
                    key: "rel".into(),
                    here: Some("2".into()),
                    recorded: Some("1".into()),
                },
                OptionDifference {
                    key: "score_threshold".into(),
                    here: Some("0".into()),
                    recorded: None,
                },
            ]
        );
        assert_eq!(
            option_differences(&record, &here(&[("rel", "1")])),
            [OptionDifference {
                key: "ties".into(),
                here: None,
                recorded: Some("docid".into()),
            }]
        );
    }

    #[test]
    fn a_run_is_read_by_name_with_queries_in_byte_order() {
        let b = parse_results(TWO_RUNS, "prod.json", Some("bm25")).unwrap();
        assert_eq!(b.name, "bm25");
        assert_eq!(b.metrics, ["ap", "p@5"]);
        assert_eq!(b.queries, ["q1", "q2"]);
        assert_eq!(b.column("ap").unwrap(), [0.75, 0.25]);
        assert!(b.column("p@5").unwrap()[1].is_nan());
        assert!(b.column("ndcg").is_none());
    }

    #[test]
    fn every_problem_names_the_file() {
        let error = |text: &str, run: Option<&str>| {
            parse_results(text, "prod.json", run)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(TWO_RUNS, None),
            "baseline prod.json: the file holds several runs (`bm25`, `dense`): say which one \
             is the baseline"
        );
        assert_eq!(
            error(TWO_RUNS, Some("x")),
            "baseline prod.json: no run named `x` in the file (it has `bm25`, `dense`)"
        );
        assert_eq!(
            error(r#"{"runs": [{"name": "a", "metrics": {}}]}"#, None),
            "baseline prod.json: run `a` has no per-query values: write the file with \
             `--format json --per-query`"
        );
        assert!(error("{", None).starts_with("baseline prod.json: not a rankeval JSON report"));
        assert!(
            error(
                r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 1}, "rr": {"q2": 1}}}]}"#,
                None
            )
            .contains("metric `rr` has values for other queries than metric `ap`")
        );
    }

    /// The message `rankeval report` gives for a results file `text`.
    fn report_error(text: &str) -> String {
        parse_all_results(text.as_bytes().to_vec(), "r.json")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_query_a_metric_or_a_run_given_twice_is_refused() {
        let twice = r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 0.5, "q1": 0.25}}}]}"#;
        assert_eq!(
            report_error(twice),
            "results file r.json: run `a`, metric `ap`: query `q1` is given twice"
        );
        let error = parse_results(twice, "prod.json", None)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("baseline prod.json: "), "{error}");
        assert!(error.contains("query `q1` is given twice"), "{error}");
        assert_eq!(
            report_error(
                r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 1}, "ap": {"q1": 0}}}]}"#
            ),
            "results file r.json: run `a`: metric `ap` is given twice in `per_query`"
        );
        let runs = r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 1}}},
            {"name": "b", "per_query": {"ap": {"q1": 1}}},
            {"name": "a", "per_query": {"ap": {"q1": 0}}}]}"#;
        assert_eq!(
            report_error(runs),
            "results file r.json: runs 1 and 3 of `runs` are both named `a`: a results file \
             names each run once"
        );
        let error = parse_results(runs, "prod.json", Some("a"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("runs 1 and 3 of `runs` are both named `a`"),
            "{error}"
        );
        // The run that is not repeated still reads as a baseline.
        assert!(parse_results(runs, "prod.json", Some("b")).is_ok());
    }

    #[test]
    fn bad_ids_and_names_are_refused_and_cut() {
        for (text, needle) in [
            (
                r#"{"runs": [{"name": "a\u001b[2J", "per_query": {"ap": {"q1": 1}}}]}"#,
                "run 1 of `runs`, its `name`: the id `a\\u{1b}[2J` contains U+001B",
            ),
            (
                r#"{"runs": [{"name": "a", "per_query": {"ap": {"q\n2": 1}}}]}"#,
                "run `a`, metric `ap`: query id: the id `q\\n2` contains U+000A",
            ),
            (
                r#"{"runs": [{"name": "a", "per_query": {"ap": {"": 1}}}]}"#,
                "query id: an id cannot be empty",
            ),
            (
                r#"{"runs": [{"name": "a", "per_query": {"a\u0000p": {"q1": 1}}}]}"#,
                "the metric name `a\\0p` contains U+0000, a control character",
            ),
            (
                r#"{"runs": [{"name": "a", "per_query": {}}]}"#,
                "run `a` has no metric in `per_query`",
            ),
            (
                r#"{"runs": [{"name": "a", "per_query": {"ap": {}}}]}"#,
                "run `a`, metric `ap`: no query has a value",
            ),
        ] {
            let error = report_error(text);
            assert!(error.starts_with("results file r.json: "), "{error}");
            assert!(error.contains(needle), "{needle}\n{error}");
        }
        let long = format!(
            r#"{{"runs": [{{"name": "a", "per_query": {{"ap": {{"q{} ": 1}}}}}}]}}"#,
            "x".repeat(1 << 20)
        );
        let error = report_error(&long);
        assert!(
            error.contains("… (1048578 bytes)` contains U+0020"),
            "{error}"
        );
        assert!(error.len() < 1000, "{} bytes", error.len());
    }

    proptest::proptest! {
        /// Any bytes, as JSON or as Parquet (with Parquet's magic before
        /// and after them), give runs or an error naming the file: never a
        /// panic.
        #[test]
        fn any_bytes_give_runs_or_an_error_naming_the_file(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512),
        ) {
            for input in [
                bytes.clone(),
                [&b"PAR1"[..], &bytes, &b"PAR1"[..]].concat(),
            ] {
                if let Err(error) = parse_all_results(input, "fuzz.input") {
                    let text = error.to_string();
                    proptest::prop_assert!(
                        text.starts_with("results file fuzz.input: "),
                        "{}",
                        text
                    );
                }
            }
        }

        /// JSON assembled from the pieces of a results file (runs, names,
        /// metrics, query ids with control characters, numbers such as
        /// `1e999`, repeated keys) gives runs or an error naming the file.
        #[test]
        fn assembled_results_json_never_panics(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "{", "}", "[", "]", ",", ":", "\"runs\"", "\"name\"", "\"per_query\"",
                    "\"a\"", "\"ap\"", "\"q1\"", "\"q\\u0000\"", "\"\"", "1e999", "-0",
                    "null", "NaN", "0.5", "\"0.5\"", "true", " ", "\u{feff}",
                ]),
                0..64,
            ),
        ) {
            let text = pieces.concat();
            if let Err(error) = parse_all_results(text.into_bytes(), "fuzz.input") {
                proptest::prop_assert!(error.to_string().starts_with("results file fuzz.input: "));
            }
        }
    }
}
