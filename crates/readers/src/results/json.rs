//! A JSON report's per-query results: `runs[].name` and
//! `runs[].per_query` (see the [module](super)), values kept as their text
//! and parsed with `fast-float2`, which rounds correctly (serde_json's own
//! float parsing may be off by one unit in the last place, and a baseline
//! must read back the very bits written).

use std::collections::BTreeMap;

use rankeval_core::{check_id, shorten_id};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{RunResults, metric_name_problem};

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

/// The run `run` (or the only run) of the JSON report `bytes`.
pub(super) fn one_run(bytes: &[u8], source: &str, run: Option<&str>) -> Result<RunResults, String> {
    let file = json_file(bytes)?;
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
                return Err(format!(
                    "no run named `{}` in the file (it has {})",
                    shorten_id(name.as_bytes()),
                    names()
                ));
            };
            if let Some((again, _)) = named.next() {
                return Err(same_name(name, index, again));
            }
            (index, first)
        }
        None => match file.runs.as_slice() {
            [only] => (0, only),
            [] => return Err("the file holds no run".into()),
            _ => {
                return Err(format!(
                    "the file holds several runs ({}): say which one is the baseline",
                    names()
                ));
            }
        },
    };
    results_of(chosen.1, chosen.0, source)
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

/// Every run of the JSON report `bytes`, in the file's order; two runs of
/// one name are an error.
pub(super) fn all_runs(bytes: &[u8], source: &str) -> Result<Vec<RunResults>, String> {
    let file = json_file(bytes)?;
    if file.runs.is_empty() {
        return Err("the file holds no run".into());
    }
    for (i, run) in file.runs.iter().enumerate() {
        if let Some(first) = file.runs[..i].iter().position(|r| r.name == run.name) {
            return Err(same_name(&run.name, first, i));
        }
    }
    file.runs
        .iter()
        .enumerate()
        .map(|(i, run)| results_of(run, i, source))
        .collect()
}

/// The per-query results of `chosen`, run `index` of the results file
/// `source`: its name, metrics and query ids checked, a metric or a query
/// given twice an error.
fn results_of(chosen: &FileRun<'_>, index: usize, source: &str) -> Result<RunResults, String> {
    check_id(chosen.name.as_bytes())
        .map_err(|e| format!("run {} of `runs`, its `name`: {e}", index + 1))?;
    let run = shorten_id(chosen.name.as_bytes());
    let Some(per_query) = &chosen.per_query else {
        return Err(format!(
            "run `{run}` has no per-query values: write the file with `--format json --per-query`"
        ));
    };
    let per_query = &per_query.0;
    if per_query.is_empty() {
        return Err(format!(
            "run `{run}` has no metric in `per_query` (a report needs at least one)"
        ));
    }
    let mut metrics: Vec<String> = Vec::with_capacity(per_query.len());
    let mut columns = Vec::with_capacity(per_query.len());
    let mut queries: Option<Vec<String>> = None;
    for (metric, values) in per_query {
        if let Some(reason) = metric_name_problem(metric) {
            return Err(format!("run `{run}`, `per_query`: {reason}"));
        }
        let shown = shorten_id(metric.as_bytes());
        if metrics.contains(metric) {
            return Err(format!(
                "run `{run}`: metric `{shown}` is given twice in `per_query`"
            ));
        }
        let mut by_query: BTreeMap<&str, &RawValue> = BTreeMap::new();
        for (query, raw) in &values.0 {
            check_id(query.as_bytes())
                .map_err(|e| format!("run `{run}`, metric `{shown}`: query id: {e}"))?;
            if by_query.insert(query, raw).is_some() {
                return Err(format!(
                    "run `{run}`, metric `{shown}`: query `{}` is given twice",
                    shorten_id(query.as_bytes())
                ));
            }
        }
        if by_query.is_empty() {
            return Err(format!(
                "run `{run}`, metric `{shown}`: no query has a value"
            ));
        }
        let these: Vec<String> = by_query.keys().map(|q| (*q).to_owned()).collect();
        match &queries {
            None => queries = Some(these),
            Some(first) if *first != these => {
                return Err(format!(
                    "run `{run}`: metric `{shown}` has values for other queries than metric \
                     `{}`; every metric must cover the same queries",
                    shorten_id(metrics[0].as_bytes())
                ));
            }
            Some(_) => {}
        }
        metrics.push(metric.clone());
        let column = by_query
            .iter()
            .map(|(query, raw)| {
                value(raw).map_err(|e| {
                    format!(
                        "run `{run}`, metric `{shown}`, query `{}`: {e}",
                        shorten_id(query.as_bytes())
                    )
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        columns.push(column);
    }
    Ok(RunResults {
        name: chosen.name.clone(),
        source: source.to_owned(),
        metrics,
        queries: queries.unwrap_or_default(),
        per_query: columns,
    })
}
