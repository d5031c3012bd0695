//! What a run is called in reports: the one rule every command (`eval`,
//! `run`, `ppi`, `agree`, `expected`, `spans`) and the Python package use,
//! so that one file has one name wherever it is given.
//!
//! A run given as `NAME=FILE` is called `NAME`. Otherwise it is called by
//! its file name without a final `.gz` and then without its last extension
//! (`bm25.trec.gz` is `bm25`, `model.v2.jsonl` is `model.v2`); where two
//! runs would share that name, each is called by its path as given.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A run as the user gave it: its file, and the name given with it
/// (`NAME=FILE`), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenRun {
    /// The name given with `NAME=FILE`.
    pub name: Option<String>,
    /// The file (`-` stays `-`: standard input is the caller's to open).
    pub path: PathBuf,
}

/// Why runs cannot be named as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// A name given with `NAME=FILE` is blank or holds a control character
    /// (it would break a table, a TSV line or a terminal).
    #[error("a run name cannot be blank nor hold a tab, newline or other control character")]
    Unprintable {
        /// The run's position among those given, from 0.
        index: usize,
    },
    /// Two runs have one name.
    #[error("runs {} and {} are both named `{name}`", first + 1, second + 1)]
    Clash {
        /// The first run with the name, from 0.
        first: usize,
        /// The second, from 0.
        second: usize,
        /// The name.
        name: String,
    },
}

/// A run's text as given (`--run`, a list of Python paths): a text that is
/// an existing path is that file, whatever it holds; else `NAME=FILE`
/// where `FILE` exists (or is `-`, standard input, or a pattern of a
/// run per forum, `runs/bm25-{forum}.trec`) gives the run a name;
/// anything else is a file that the caller will find missing.
pub fn split_named(text: &Path) -> GivenRun {
    let whole = || GivenRun {
        name: None,
        path: text.to_owned(),
    };
    if text.exists() {
        return whole();
    }
    match text.to_str().and_then(|t| t.split_once('=')) {
        Some((name, file))
            if !name.is_empty()
                && (file == "-"
                    || Path::new(file).exists()
                    || file.contains(crate::benchmarks::parts::PLACEHOLDER)) =>
        {
            GivenRun {
                name: Some(name.to_owned()),
                path: PathBuf::from(file),
            }
        }
        _ => whole(),
    }
}

/// The name a run file has when none is given: its file name without a
/// final `.gz`, then without its last extension.
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_owned(),
        _ => name.to_owned(),
    }
}

/// The name of each run file when none is given: its [`stem`], or its path
/// as given where two stems clash.
pub fn run_names(paths: &[PathBuf]) -> Vec<String> {
    let stems: Vec<String> = paths.iter().map(|p| stem(p)).collect();
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(stems.len());
    for s in &stems {
        *counts.entry(s.as_str()).or_insert(0) += 1;
    }
    paths
        .iter()
        .zip(&stems)
        .map(|(path, s)| {
            if counts[s.as_str()] > 1 {
                path.display().to_string()
            } else {
                s.clone()
            }
        })
        .collect()
}

/// Whether `name` may name a run or a policy in a report: not blank, and
/// no tab, newline or other control character (it would break a table, a
/// TSV line or a terminal).
pub fn is_printable_name(name: &str) -> bool {
    !name.trim().is_empty() && !name.chars().any(char::is_control)
}

/// The report name of each run: the name given, else its file's (by
/// [`run_names`] over every run's file, so that a file's default name does
/// not depend on whether another run was named); names must be printable
/// and unique.
pub fn name_runs(runs: &[GivenRun]) -> Result<Vec<String>, NameError> {
    let paths: Vec<PathBuf> = runs.iter().map(|r| r.path.clone()).collect();
    let defaults = run_names(&paths);
    let mut names = Vec::with_capacity(runs.len());
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(runs.len());
    for (index, (run, default)) in runs.iter().zip(defaults).enumerate() {
        let name = match &run.name {
            Some(name) => {
                if !is_printable_name(name) {
                    return Err(NameError::Unprintable { index });
                }
                name.clone()
            }
            None => default,
        };
        if let Some(first) = seen.insert(name.clone(), index) {
            return Err(NameError::Clash {
                first,
                second: index,
                name,
            });
        }
        names.push(name);
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(texts: &[&str]) -> Vec<PathBuf> {
        texts.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn run_names_are_stems_unless_they_clash() {
        let names = run_names(&paths(&[
            "runs/bm25.trec",
            "runs/dense.jsonl.gz",
            "a/x.trec",
            "b/x.trec",
        ]));
        assert_eq!(names, ["bm25", "dense", "a/x.trec", "b/x.trec"]);
        // One extension goes, as docs/cli.md says: not every dot.
        let names = run_names(&paths(&["model.v2.jsonl", "x.v1.trec.gz"]));
        assert_eq!(names, ["model.v2", "x.v1"]);
        // A name that is all extension keeps it.
        assert_eq!(run_names(&paths(&[".trec", "run"])), [".trec", "run"]);
    }

    #[test]
    fn a_name_given_wins_and_names_are_unique() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bm25.trec.gz");
        std::fs::write(&file, b"").unwrap();
        let named = split_named(Path::new(&format!("base={}", file.display())));
        assert_eq!(named.name.as_deref(), Some("base"));
        assert_eq!(named.path, file);
        // An existing path is a file, even with `=` in it.
        let odd = dir.path().join("a=b.trec");
        std::fs::write(&odd, b"").unwrap();
        assert_eq!(split_named(&odd).name, None);
        // `NAME=-` is standard input, named.
        assert_eq!(split_named(Path::new("x=-")).name.as_deref(), Some("x"));
        // A missing file stays whole, for the caller's "no such file".
        assert_eq!(split_named(Path::new("x=nope.trec")).name, None);

        let given = |name: Option<&str>, path: &str| GivenRun {
            name: name.map(str::to_owned),
            path: PathBuf::from(path),
        };
        let runs = [
            given(None, "r/bm25.trec.gz"),
            given(Some("dense"), "d.trec"),
        ];
        assert_eq!(name_runs(&runs).unwrap(), ["bm25", "dense"]);
        let clash = [given(None, "bm25.trec"), given(Some("bm25"), "other.trec")];
        assert_eq!(
            name_runs(&clash).unwrap_err(),
            NameError::Clash {
                first: 0,
                second: 1,
                name: "bm25".into()
            }
        );
        for bad in [" ", "a\tb", ""] {
            let runs = [given(Some(bad), "x.trec")];
            assert_eq!(
                name_runs(&runs).unwrap_err(),
                NameError::Unprintable { index: 0 }
            );
        }
    }
}
