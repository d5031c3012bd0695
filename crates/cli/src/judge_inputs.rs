//! The inputs `rankeval ppi`, `rankeval agree`, `rankeval expected` and `rankeval spans`
//! share: qrels with a chosen grade column, named runs, and metrics; and their JSON
//! output.

use std::path::{Path, PathBuf};

use rankeval::core::{Metric, Qrels, Run, registry};
use rankeval::read::{CsvOptions, Format, Input};
use rankeval::{ReadOptions, read_qrels, read_run};

use super::CliError;

/// Reads qrels from `path`, its grades from the column `grade` if given
/// (a table's column: CSV, Parquet, JSON Lines rows).
pub(crate) fn qrels(path: &Path, grade: Option<&str>) -> Result<Qrels, CliError> {
    let input = Input::file(path);
    // The format stays the file's own: a grade column applies to CSV,
    // Parquet, Arrow and JSON Lines rows alike; TREC qrels have one grade.
    if let Some(grade) = grade
        && matches!(
            input.format(),
            Format::Trec | Format::Msmarco | Format::Json
        )
    {
        return Err(CliError::Usage(format!(
            "--grade {grade}: {} is read as {} qrels, which have one grade column; \
             a grade column is chosen in a table (TSV, CSV, Parquet, Arrow, JSON Lines rows)",
            path.display(),
            match input.format() {
                Format::Trec => "TREC",
                Format::Msmarco => "MS MARCO",
                _ => "JSON",
            }
        )));
    }
    let input = match grade {
        Some(grade) => input.with_columns(CsvOptions {
            grade: grade.to_owned(),
            ..CsvOptions::default()
        }),
        None => input,
    };
    Ok(read_qrels(&input)?)
}

/// Reads each `[NAME=]FILE` of `--run` (named by the file's stem when no
/// name is given); two runs of one name are an error.
pub(crate) fn runs(given: &[String]) -> Result<Vec<(String, Run)>, CliError> {
    let mut runs: Vec<(String, Run)> = Vec::with_capacity(given.len());
    for text in given {
        let (name, path) = run_name(text);
        if runs.iter().any(|(n, _)| *n == name) {
            return Err(CliError::Usage(format!(
                "--run {text}: two runs are named `{name}`; name them with NAME=FILE"
            )));
        }
        let run = read_run(&Input::file(&path), ReadOptions::default())?;
        runs.push((name, run));
    }
    Ok(runs)
}

/// The name and file of a `[NAME=]FILE` (`--run`, and `rankeval agree`'s
/// `--qrels`): the file's stem when
/// no name is given (or when the whole text is a file that exists).
pub(crate) fn run_name(text: &str) -> (String, PathBuf) {
    match text.split_once('=') {
        Some((name, path)) if !name.is_empty() && !Path::new(text).exists() => {
            (name.to_owned(), PathBuf::from(path))
        }
        _ => {
            let path = PathBuf::from(text);
            let stem = path
                .file_stem()
                .map_or_else(|| text.to_owned(), |s| s.to_string_lossy().into_owned());
            (stem, path)
        }
    }
}

/// Builds each `-m` (every bad one reported), each name once.
pub(crate) fn metrics(specs: &[String]) -> Result<Vec<Box<dyn Metric>>, CliError> {
    let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
    let mut bad = Vec::new();
    for spec in specs {
        match registry::parse_metric(spec) {
            Ok(metric) => {
                if !metrics.iter().any(|m| m.name() == metric.name()) {
                    metrics.push(metric);
                }
            }
            Err(source) => bad.push(CliError::Plugin {
                flag: "-m",
                value: spec.clone(),
                source: Box::new(source),
            }),
        }
    }
    if bad.is_empty() {
        Ok(metrics)
    } else {
        Err(CliError::all(bad))
    }
}

/// A report as pretty JSON with a final newline (`--format json`).
pub(crate) fn json_report(report: &impl serde::Serialize) -> Result<String, CliError> {
    let mut json = serde_json::to_string_pretty(report)
        .map_err(|e| CliError::Usage(format!("the JSON report: {e}")))?;
    json.push('\n');
    Ok(json)
}
