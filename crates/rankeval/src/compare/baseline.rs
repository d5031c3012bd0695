//! A committed baseline: the per-query results of one run as
//! `rankeval eval|run --format json --per-query -o FILE` writes them, read
//! back so that a new run can be compared with them query by query.
//!
//! A per-query Parquet table (`query`, `run`, one float column per metric),
//! as `rankeval_rs.spark` writes it (a file, or a directory of part files),
//! reads too: the results of a Spark job compared after it.
//!
//! Of a JSON file, only `runs[].name` and `runs[].per_query` are read (`{metric: {query:
//! value}}`; `null`, which the writer prints for NaN, reads as NaN); every
//! other key is ignored, so a file written by a later rankeval with more
//! keys still reads.

use std::collections::BTreeMap;
use std::path::Path;

use rankeval_core::{check_id, shorten_id};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::CompareRunError;
use super::parquet_results;
use super::results_input::{self, ResultsInput};

/// The per-query results of one run, read from a results file.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineResults {
    /// The run's name in the file.
    pub name: String,
    /// The file, as named by the user.
    pub source: String,
    /// The metrics' canonical names, in the order of `per_query`.
    pub metrics: Vec<String>,
    /// The queries, in byte order of their ids.
    pub queries: Vec<String>,
    /// `per_query[m][q]`: metric `m` on query `q`.
    pub per_query: Vec<Vec<f64>>,
}

impl BaselineResults {
    /// The results on the queries in `queries` only (a group's).
    pub fn restricted(&self, queries: &std::collections::HashSet<&str>) -> Self {
        let rows: Vec<usize> = self
            .queries
            .iter()
            .enumerate()
            .filter(|(_, q)| queries.contains(q.as_str()))
            .map(|(i, _)| i)
            .collect();
        self.select(&rows)
    }

    /// The same results on the queries at `rows` (indexes into
    /// [`queries`](Self::queries), in the order given): what
    /// [`restricted`](Self::restricted) keeps, at the cost of the rows
    /// alone, for a caller that has found them (each of many groups).
    pub fn select(&self, rows: &[usize]) -> Self {
        Self {
            name: self.name.clone(),
            source: self.source.clone(),
            metrics: self.metrics.clone(),
            queries: rows.iter().map(|&i| self.queries[i].clone()).collect(),
            per_query: self
                .per_query
                .iter()
                .map(|c| rows.iter().map(|&i| c[i]).collect())
                .collect(),
        }
    }

    /// The per-query column of `metric`, if the file has it.
    pub fn column(&self, metric: &str) -> Option<&[f64]> {
        self.metrics
            .iter()
            .position(|m| m == metric)
            .map(|m| self.per_query[m].as_slice())
    }
}

#[derive(Deserialize)]
struct File<'a> {
    #[serde(borrow)]
    runs: Vec<FileRun<'a>>,
}

/// Values are kept as their text and parsed with `fast-float2`, which
/// rounds correctly: serde_json's own float parsing may be off by one unit
/// in the last place, and a baseline must read back the very bits written.
#[derive(Deserialize)]
struct FileRun<'a> {
    name: String,
    /// The run's `per_query` object: its metrics in the file's order (the
    /// order the report listed them in), each metric's values by query.
    #[serde(borrow)]
    per_query: Option<Entries<Entries<&'a RawValue>>>,
}

/// A JSON object's entries in the file's order, a repeated key kept: a map
/// would keep one of two values for a query given twice, silently.
struct Entries<V>(Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<V>(std::marker::PhantomData<V>);

        impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<V> {
            type Value = Entries<V>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, V>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }

        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// A per-query value as written: a number, or `null` (NaN).
fn value(raw: &RawValue) -> Result<f64, String> {
    let text = raw.get().trim();
    if text == "null" {
        return Ok(f64::NAN);
    }
    fast_float2::parse(text)
        .map_err(|_| format!("`{}` is not a number", shorten_id(text.as_bytes())))
}

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
    /// The error for `reason`, naming the file `path` in this role.
    fn error(self, path: &str, reason: String) -> CompareRunError {
        let path = path.to_owned();
        match self {
            Role::Baseline => CompareRunError::BaselineFile { path, reason },
            Role::Results => CompareRunError::ResultsFile { path, reason },
        }
    }
}

/// Why `name` cannot be a metric's name in a results file (a JSON key, a
/// Parquet column), if it cannot: it is printed as a column header, so it
/// is not empty and holds no control character.
pub(crate) fn metric_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a metric name cannot be empty".to_owned());
    }
    name.chars().find(|c| c.is_control()).map(|c| {
        format!(
            "the metric name `{}` contains U+{:04X}, a control character",
            shorten_id(name.as_bytes()),
            u32::from(c)
        )
    })
}

/// Reads the run `run` (or the file's only run, when `None`) from the
/// results file at `path`: a JSON report, or a per-query Parquet table (a
/// file, or a directory of part files). Read within the limits of an input
/// read whole (a pipe or `/dev/zero` ends in an error naming it); errors
/// call it the baseline.
pub fn read_results(path: &Path, run: Option<&str>) -> Result<BaselineResults, CompareRunError> {
    let source = path.display().to_string();
    let problem = |reason: String| Role::Baseline.error(&source, reason);
    match results_input::load(path).map_err(problem)? {
        ResultsInput::Parquet(parts) => {
            parquet_results::read(&source, &parts, run).map_err(problem)
        }
        ResultsInput::Json(bytes) => one_run(&bytes, &source, run, Role::Baseline),
    }
}

/// [`read_results`] of a JSON file's text; `source` names it in errors.
pub fn parse_results(
    text: &str,
    source: &str,
    run: Option<&str>,
) -> Result<BaselineResults, CompareRunError> {
    one_run(text.as_bytes(), source, run, Role::Baseline)
}

/// The run `run` (or the only run) of the JSON report `bytes`.
fn one_run(
    bytes: &[u8],
    source: &str,
    run: Option<&str>,
    role: Role,
) -> Result<BaselineResults, CompareRunError> {
    let problem = |reason: String| role.error(source, reason);
    let file = json_file(bytes).map_err(problem)?;
    let names = || {
        file.runs
            .iter()
            .map(|r| format!("`{}`", shorten_id(r.name.as_bytes())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match run {
        Some(name) => {
            let mut named = file.runs.iter().enumerate().filter(|(_, r)| r.name == name);
            let Some((index, first)) = named.next() else {
                return Err(problem(format!(
                    "no run named `{}` in the file (it has {})",
                    shorten_id(name.as_bytes()),
                    names()
                )));
            };
            if let Some((again, _)) = named.next() {
                return Err(problem(same_name(name, index, again)));
            }
            (index, first)
        }
        None => match file.runs.as_slice() {
            [only] => (0, only),
            [] => return Err(problem("the file holds no run".into())),
            _ => {
                return Err(problem(format!(
                    "the file holds several runs ({}): say which one is the baseline",
                    names()
                )));
            }
        },
    };
    results_of(chosen.1, chosen.0, source, role)
}

/// The JSON report in `bytes`, its structure checked.
fn json_file(bytes: &[u8]) -> Result<File<'_>, String> {
    serde_json::from_slice(bytes)
        .map_err(|e| format!("not a rankeval JSON report (`--format json --per-query`): {e}"))
}

/// The message for two runs of one name (at `first` and `again` in `runs`).
fn same_name(name: &str, first: usize, again: usize) -> String {
    format!(
        "runs {} and {} of `runs` are both named `{}`: a results file names each run once",
        first + 1,
        again + 1,
        shorten_id(name.as_bytes())
    )
}

/// Every run of the results file at `path` (a JSON report written with
/// `--format json --per-query`, or a per-query Parquet table), in the
/// file's order (byte order of their names for Parquet): what `rankeval
/// report` renders. Errors call it the results file; two runs of one name
/// are an error.
pub fn read_all_results(path: &Path) -> Result<Vec<BaselineResults>, CompareRunError> {
    let source = path.display().to_string();
    let problem = |reason: String| Role::Results.error(&source, reason);
    all_runs(results_input::load(path).map_err(problem)?, &source)
}

/// [`read_all_results`] of bytes already read (a JSON report, or a Parquet
/// file when they start with `PAR1`); `source` names them in errors.
pub fn parse_all_results(
    bytes: Vec<u8>,
    source: &str,
) -> Result<Vec<BaselineResults>, CompareRunError> {
    all_runs(results_input::classify(bytes, source), source)
}

/// Every run of a results file's content.
fn all_runs(input: ResultsInput, source: &str) -> Result<Vec<BaselineResults>, CompareRunError> {
    let problem = |reason: String| Role::Results.error(source, reason);
    let bytes = match input {
        ResultsInput::Parquet(parts) => {
            return parquet_results::read_all(source, &parts).map_err(problem);
        }
        ResultsInput::Json(bytes) => bytes,
    };
    let file = json_file(&bytes).map_err(problem)?;
    if file.runs.is_empty() {
        return Err(problem("the file holds no run".into()));
    }
    for (i, run) in file.runs.iter().enumerate() {
        if let Some(first) = file.runs[..i].iter().position(|r| r.name == run.name) {
            return Err(problem(same_name(&run.name, first, i)));
        }
    }
    file.runs
        .iter()
        .enumerate()
        .map(|(i, run)| results_of(run, i, source, Role::Results))
        .collect()
}

/// The per-query results of `chosen`, run `index` of the results file
/// `source`: its name, metrics and query ids checked, a metric or a query
/// given twice an error.
fn results_of(
    chosen: &FileRun<'_>,
    index: usize,
    source: &str,
    role: Role,
) -> Result<BaselineResults, CompareRunError> {
    let problem = |reason: String| role.error(source, reason);
    check_id(chosen.name.as_bytes())
        .map_err(|e| problem(format!("run {} of `runs`, its `name`: {e}", index + 1)))?;
    let run = shorten_id(chosen.name.as_bytes());
    let Some(per_query) = &chosen.per_query else {
        return Err(problem(format!(
            "run `{run}` has no per-query values: write the file with `--format json --per-query`"
        )));
    };
    let per_query = &per_query.0;
    if per_query.is_empty() {
        return Err(problem(format!(
            "run `{run}` has no metric in `per_query` (a report needs at least one)"
        )));
    }
    let mut metrics: Vec<String> = Vec::with_capacity(per_query.len());
    let mut columns = Vec::with_capacity(per_query.len());
    let mut queries: Option<Vec<String>> = None;
    for (metric, values) in per_query {
        if let Some(reason) = metric_name_problem(metric) {
            return Err(problem(format!("run `{run}`, `per_query`: {reason}")));
        }
        let shown = shorten_id(metric.as_bytes());
        if metrics.contains(metric) {
            return Err(problem(format!(
                "run `{run}`: metric `{shown}` is given twice in `per_query`"
            )));
        }
        let mut by_query: BTreeMap<&str, &RawValue> = BTreeMap::new();
        for (query, raw) in &values.0 {
            check_id(query.as_bytes())
                .map_err(|e| problem(format!("run `{run}`, metric `{shown}`: query id: {e}")))?;
            if by_query.insert(query, raw).is_some() {
                return Err(problem(format!(
                    "run `{run}`, metric `{shown}`: query `{}` is given twice",
                    shorten_id(query.as_bytes())
                )));
            }
        }
        if by_query.is_empty() {
            return Err(problem(format!(
                "run `{run}`, metric `{shown}`: no query has a value"
            )));
        }
        let these: Vec<String> = by_query.keys().map(|q| (*q).to_owned()).collect();
        match &queries {
            None => queries = Some(these),
            Some(first) if *first != these => {
                return Err(problem(format!(
                    "run `{run}`: metric `{shown}` has values for other queries than metric \
                     `{}`; every metric must cover the same queries",
                    shorten_id(metrics[0].as_bytes())
                )));
            }
            Some(_) => {}
        }
        metrics.push(metric.clone());
        let column = by_query
            .iter()
            .map(|(query, raw)| {
                value(raw).map_err(|e| {
                    problem(format!(
                        "run `{run}`, metric `{shown}`, query `{}`: {e}",
                        shorten_id(query.as_bytes())
                    ))
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        columns.push(column);
    }
    Ok(BaselineResults {
        name: chosen.name.clone(),
        source: source.to_owned(),
        metrics,
        queries: queries.unwrap_or_default(),
        per_query: columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_RUNS: &str = r#"{"runs": [
        {"name": "bm25", "num_queries": 2, "metrics": {"ap": {"mean": 0.5}},
         "per_query": {"ap": {"q2": 0.25, "q1": 0.75}, "p@5": {"q1": 0.4, "q2": null}}},
        {"name": "dense", "per_query": {"ap": {"q1": 1.0}}}
    ], "warnings": []}"#;

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
