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

use serde::Deserialize;
use serde_json::value::RawValue;

use super::CompareRunError;

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
    #[serde(borrow)]
    per_query: Option<InFileOrder<'a>>,
}

/// A run's `per_query` object, its metrics in the file's order (the order
/// the report listed them in), each metric's values by query.
struct InFileOrder<'a>(Vec<(String, BTreeMap<String, &'a RawValue>)>);

impl<'de: 'a, 'a> Deserialize<'de> for InFileOrder<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Entries<'a> {
            type Value = InFileOrder<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of metrics, each an object of per-query values")
            }

            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some(entry) =
                    map.next_entry::<String, BTreeMap<String, &'de RawValue>>()?
                {
                    entries.push(entry);
                }
                Ok(InFileOrder(entries))
            }
        }

        deserializer.deserialize_map(Entries(std::marker::PhantomData))
    }
}

/// A per-query value as written: a number, or `null` (NaN).
fn value(raw: &RawValue) -> Result<f64, String> {
    let text = raw.get().trim();
    if text == "null" {
        return Ok(f64::NAN);
    }
    fast_float2::parse(text).map_err(|_| format!("`{text}` is not a number"))
}

/// Reads the run `run` (or the file's only run, when `None`) from the
/// results file at `path`.
pub fn read_results(path: &Path, run: Option<&str>) -> Result<BaselineResults, CompareRunError> {
    let source = path.display().to_string();
    let problem = |reason: String| CompareRunError::BaselineFile {
        path: source.clone(),
        reason,
    };
    if path.is_dir() || path.extension().is_some_and(|e| e == "parquet") {
        return super::parquet_results::read(path, run).map_err(problem);
    }
    let text = std::fs::read_to_string(path).map_err(|e| problem(format!("cannot read: {e}")))?;
    parse_results(&text, &source, run)
}

/// [`read_results`] of a file's text; `source` names it in errors.
pub fn parse_results(
    text: &str,
    source: &str,
    run: Option<&str>,
) -> Result<BaselineResults, CompareRunError> {
    let problem = |reason: String| CompareRunError::BaselineFile {
        path: source.to_owned(),
        reason,
    };
    let file: File = serde_json::from_str(text).map_err(|e| {
        problem(format!(
            "not a rankeval JSON report (`--format json --per-query`): {e}"
        ))
    })?;
    let names = || {
        file.runs
            .iter()
            .map(|r| format!("`{}`", r.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match run {
        Some(name) => file.runs.iter().find(|r| r.name == name).ok_or_else(|| {
            problem(format!(
                "no run named `{name}` in the file (it has {})",
                names()
            ))
        })?,
        None => match file.runs.as_slice() {
            [only] => only,
            [] => return Err(problem("the file holds no run".into())),
            _ => {
                return Err(problem(format!(
                    "the file holds several runs ({}): say which one is the baseline",
                    names()
                )));
            }
        },
    };
    results_of(chosen, source)
}

/// Every run of the results file at `path` (a JSON report written with
/// `--format json --per-query`, or a per-query Parquet table), in the
/// file's order (byte order of their names for Parquet): what `rankeval
/// report` renders.
pub fn read_all_results(path: &Path) -> Result<Vec<BaselineResults>, CompareRunError> {
    let source = path.display().to_string();
    let problem = |reason: String| CompareRunError::BaselineFile {
        path: source.clone(),
        reason,
    };
    if path.is_dir() || path.extension().is_some_and(|e| e == "parquet") {
        return super::parquet_results::read_all(path).map_err(problem);
    }
    let text = std::fs::read_to_string(path).map_err(|e| problem(format!("cannot read: {e}")))?;
    let file: File = serde_json::from_str(&text).map_err(|e| {
        problem(format!(
            "not a rankeval JSON report (`--format json --per-query`): {e}"
        ))
    })?;
    if file.runs.is_empty() {
        return Err(problem("the file holds no run".into()));
    }
    file.runs
        .iter()
        .map(|run| results_of(run, &source))
        .collect()
}

/// The per-query results of `chosen`, a run of the results file `source`.
fn results_of(chosen: &FileRun<'_>, source: &str) -> Result<BaselineResults, CompareRunError> {
    let problem = |reason: String| CompareRunError::BaselineFile {
        path: source.to_owned(),
        reason,
    };
    let Some(per_query) = &chosen.per_query else {
        return Err(problem(format!(
            "run `{}` has no per-query values: write the file with `--format json --per-query`",
            chosen.name
        )));
    };
    let per_query = &per_query.0;
    let mut metrics = Vec::with_capacity(per_query.len());
    let mut columns = Vec::with_capacity(per_query.len());
    let mut queries: Option<Vec<String>> = None;
    for (metric, values) in per_query {
        let these: Vec<String> = values.keys().cloned().collect();
        match &queries {
            None => queries = Some(these),
            Some(first) if *first != these => {
                return Err(problem(format!(
                    "run `{}`: metric `{metric}` has values for other queries than metric `{}`; \
                     every metric must cover the same queries",
                    chosen.name, metrics[0]
                )));
            }
            Some(_) => {}
        }
        metrics.push(metric.clone());
        let column = values
            .iter()
            .map(|(query, raw)| {
                value(raw).map_err(|e| {
                    problem(format!(
                        "run `{}`, metric `{metric}`, query `{query}`: {e}",
                        chosen.name
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
}
