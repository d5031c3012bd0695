//! A suite file: a TOML file that lists experiment files (datasets) and how
//! to aggregate them, so that a suite is kept in the repository like an
//! experiment: `rankeval run suite.toml`.
//!
//! ```toml
//! experiments = ["scifact.toml", "nfcorpus.toml", "fiqa.toml"]  # relative to this file
//! aggregate = "macro"                                              # the default
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{ConfigError, read_config};
use crate::experiment::{InputProblem, input_problem};

/// A suite file, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteFile {
    /// The experiment files, relative to the working directory.
    pub experiments: Vec<PathBuf>,
    /// Whether to add the macro average (`aggregate = "macro"`).
    pub macro_average: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    experiments: toml::Spanned<Vec<String>>,
    #[serde(default)]
    aggregate: Option<toml::Spanned<String>>,
}

/// Only the key that makes a TOML file a suite, with where it is.
#[derive(Deserialize)]
struct SuiteKey {
    experiments: Option<toml::Spanned<toml::Value>>,
}

/// The line of the top-level `experiments` key of the TOML `text`, if it
/// has one: the mark of a suite file, which no experiment file has.
pub(crate) fn suite_line(text: &str) -> Option<usize> {
    let key: SuiteKey = toml::from_str(text).ok()?;
    let start = key.experiments?.span().start;
    Some(1 + text[..start].matches('\n').count())
}

/// Why a suite file cannot be an experiment of a suite (or one of several
/// files run together).
pub(crate) const SUITE_IN_SUITE: &str = "a suite cannot contain a suite: list the experiment files \
     of both in one suite, or run each suite on its own (`rankeval run SUITE.toml`)";

/// The suite `path` holds, or `None` when it is an experiment file (it has
/// no top-level `experiments` key). Errors name the file, the line and the
/// key: fewer than two experiments, one that does not exist or is itself a
/// suite, an unknown `aggregate`, an unknown key.
pub fn load_suite(path: &Path) -> Result<Option<SuiteFile>, ConfigError> {
    suite_of(path, read_config(path)?)
}

/// [`load_suite`] of the file at `path`, already read as `bytes`.
pub(crate) fn suite_of(path: &Path, bytes: Vec<u8>) -> Result<Option<SuiteFile>, ConfigError> {
    let name = path.display().to_string();
    let Ok(text) = String::from_utf8(bytes) else {
        // Not UTF-8: loading it as an experiment names the line.
        return Ok(None);
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        // Not TOML: loading it as an experiment reports the error.
        return Ok(None);
    };
    if !table.contains_key("experiments") {
        return Ok(None);
    }
    let raw: RawSuite = toml::from_str(&text).map_err(|source| ConfigError::Toml {
        path: name.clone(),
        source,
    })?;
    let line = |span: std::ops::Range<usize>| 1 + text[..span.start].matches('\n').count();
    let invalid = |span, key: &str, reason: String| ConfigError::Invalid {
        path: name.clone(),
        line: line(span),
        key: key.to_owned(),
        reason,
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let span = raw.experiments.span();
    let files = raw.experiments.into_inner();
    if files.len() < 2 {
        return Err(invalid(
            span,
            "experiments",
            format!(
                "a suite needs at least 2 experiment files, got {}",
                files.len()
            ),
        ));
    }
    let mut experiments = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let full = base.join(file);
        if let Some(problem) = input_problem(&full) {
            let reason = match problem {
                InputProblem::Missing => format!("{}: no such file", full.display()),
                other => format!("{}: {other}", full.display()),
            };
            return Err(invalid(
                span.clone(),
                &format!("experiments[{}]", i + 1),
                reason,
            ));
        }
        // A suite within the suite: said here, naming both files, rather
        // than as the experiment file's unknown keys.
        let key = format!("experiments[{}]", i + 1);
        let bytes = read_config(&full).map_err(|e| invalid(span.clone(), &key, e.to_string()))?;
        if let Ok(inner) = String::from_utf8(bytes)
            && let Some(inner_line) = suite_line(&inner)
        {
            return Err(invalid(
                span.clone(),
                &key,
                format!(
                    "{} is a suite file itself (`experiments` on its line {inner_line}): \
                     {SUITE_IN_SUITE}",
                    full.display()
                ),
            ));
        }
        experiments.push(full);
    }
    if let Err(repeat) = crate::suite::distinct_files(&experiments) {
        return Err(invalid(span, "experiments", repeat.to_string()));
    }
    let macro_average = match &raw.aggregate {
        None => true,
        Some(aggregate) if aggregate.get_ref() == "macro" => true,
        Some(aggregate) if aggregate.get_ref() == "none" => false,
        Some(aggregate) => {
            return Err(invalid(
                aggregate.span(),
                "aggregate",
                format!(
                    "`{}`: a suite's aggregate is \"macro\" (the default) or \"none\"",
                    aggregate.get_ref()
                ),
            ));
        }
    };
    Ok(Some(SuiteFile {
        experiments,
        macro_average,
    }))
}
