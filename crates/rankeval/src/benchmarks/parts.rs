//! A benchmark reported as the mean of others (CQADupStack: the mean of
//! its 12 forums' nDCG@10, each forum judged on its own qrels): its runs
//! given once, as a pattern (`runs/bm25-{forum}.trec`) or a folder of
//! files named by forum, each forum evaluated as an experiment of its own,
//! and the benchmark's value the mean of the forums' means.
//!
//! BEIR computes CQADupStack so: "the mean of means ... each domain/corpus
//! having equal weight, `sum(NDCG@10 for each domain) / 12`"
//! (beir-cellar/beir#9, its authors' answer); ir_datasets keeps the forums
//! as 12 datasets, each with its own corpus, queries and qrels, and no
//! concatenated one, "since it could be confused with BEIR's official way
//! of reporting `cqadupstack`" (allenai/ir_datasets#221); Anserini and
//! Pyserini keep a run per forum (`cqadupstack-android` ...). A forum's
//! query and document ids are its own StackExchange site's post ids,
//! numbered per site, so nothing makes them unique across forums: one run
//! file cannot say which forum a line is for, and rankeval takes a run per
//! forum.
//!
//! The rule is here once, for every front end: `spec::resolve` expands
//! each run into its forums' files ([`part_files`]) and names it
//! ([`written`]); `Experiment::run` evaluates each forum and gives the
//! report whose rows are the forums ([`summary`]) with each forum's own
//! report ([`PartResults`]).

use std::path::{Path, PathBuf};

use rankeval_core::Aggregator;
use rankeval_core::exact_sum::fmean;

use super::Benchmark;
use crate::read::{Format, Input};
use crate::report::{Report, ReportWarning, RunResult, RunWarning, aggregate_run};

/// What stands for the forum in a run's path: `runs/bm25-{forum}.trec`.
pub const PLACEHOLDER: &str = "{forum}";

/// A benchmark of parts, resolved: each part's qrels and each run's file.
#[derive(Clone, Debug)]
pub struct Parts {
    /// The benchmark's id (`beir/cqadupstack`).
    pub benchmark: String,
    /// The parts, in the card's order.
    pub parts: Vec<Part>,
}

/// One part of a benchmark (a forum of CQADupStack).
#[derive(Clone, Debug)]
pub struct Part {
    /// Its short name (`android`), what the placeholder stands for.
    pub name: String,
    /// Its ir_datasets id (`beir/cqadupstack/android`).
    pub id: String,
    /// Its qrels, in ir_datasets' cache.
    pub qrels: Input,
    /// Each run's file for this part, in the experiment's run order.
    pub runs: Vec<Input>,
}

/// Each part evaluated: its report, in the card's order.
#[derive(Clone, Debug)]
pub struct PartResults {
    /// The benchmark's id.
    pub benchmark: String,
    /// `(part name, part id, its report)`.
    pub reports: Vec<(String, String, Report)>,
}

/// A run of a benchmark of parts cannot be found for every part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PartsError {
    /// One file, no pattern: it cannot say which part a line is for.
    #[error(
        "{benchmark} is the mean of {count} forums, each judged on its own qrels, whose query \
         ids are each forum's own: give a run per forum, as a pattern with {PLACEHOLDER} \
         (`runs/bm25-{PLACEHOLDER}.trec`) or a folder of files named by forum \
         (`runs/bm25/android.trec`, ...)"
    )]
    OneFile {
        /// The benchmark.
        benchmark: String,
        /// How many parts it has.
        count: usize,
    },
    /// A folder holds no run for a part.
    #[error(
        "{}: no run for forum `{part}` ({id}): the folder holds a file named `{part}` with \
         any extensions (`{part}.trec`) for each of {benchmark}'s forums",
        folder.display()
    )]
    MissingInFolder {
        /// The folder.
        folder: PathBuf,
        /// The part.
        part: String,
        /// The part's id.
        id: String,
        /// The benchmark.
        benchmark: String,
    },
    /// A folder holds two runs for a part.
    #[error(
        "{}: two runs for forum `{part}`, {} and {}: keep one",
        folder.display(),
        first.display(),
        second.display()
    )]
    TwoInFolder {
        /// The folder.
        folder: PathBuf,
        /// The part.
        part: String,
        /// One file.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// The folder cannot be listed.
    #[error("{}: cannot list the folder: {reason}", folder.display())]
    Unlisted {
        /// The folder.
        folder: PathBuf,
        /// Why.
        reason: String,
    },
}

/// The part names of `benchmark` (its `parts` ids without the benchmark's
/// own id: `beir/cqadupstack/android` is `android`).
pub fn names(benchmark: &Benchmark) -> Vec<(String, String)> {
    let prefix = format!("{}/", benchmark.id);
    benchmark
        .parts
        .iter()
        .map(|id| {
            let name = id.strip_prefix(&prefix).unwrap_or(id);
            (name.to_owned(), id.clone())
        })
        .collect()
}

/// The file of each part (`(name, id)` of [`names`]) for the run given as
/// `pattern`: the placeholder replaced by the part's name, or, for a
/// folder, the one file in it whose name up to its first `.` is the part's
/// (`android.trec`, `android.trec.gz`). A missing file is the caller's to
/// find (it names the file); a folder without a part's file is an error
/// naming the part.
pub fn part_files(
    benchmark: &str,
    pattern: &Path,
    parts: &[(String, String)],
) -> Result<Vec<PathBuf>, PartsError> {
    let text = pattern.to_string_lossy();
    if text.contains(PLACEHOLDER) {
        return Ok(parts
            .iter()
            .map(|(name, _)| PathBuf::from(text.replace(PLACEHOLDER, name)))
            .collect());
    }
    if !pattern.is_dir() {
        return Err(PartsError::OneFile {
            benchmark: benchmark.to_owned(),
            count: parts.len(),
        });
    }
    let unlisted = |e: std::io::Error| PartsError::Unlisted {
        folder: pattern.to_owned(),
        reason: e.to_string(),
    };
    let mut found: Vec<Option<PathBuf>> = vec![None; parts.len()];
    for entry in std::fs::read_dir(pattern).map_err(unlisted)? {
        let entry = entry.map_err(unlisted)?;
        let file_name = entry.file_name();
        // A name that is not UTF-8 is no forum's.
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let stem = file_name.split('.').next().unwrap_or_default();
        if let Some(index) = parts.iter().position(|(name, _)| name == stem) {
            let path = entry.path();
            if let Some(first) = &found[index] {
                let (first, second) = if *first < path {
                    (first.clone(), path)
                } else {
                    (path, first.clone())
                };
                return Err(PartsError::TwoInFolder {
                    folder: pattern.to_owned(),
                    part: parts[index].0.clone(),
                    first,
                    second,
                });
            }
            found[index] = Some(path);
        }
    }
    found
        .into_iter()
        .zip(parts)
        .map(|(path, (name, id))| {
            path.ok_or_else(|| PartsError::MissingInFolder {
                folder: pattern.to_owned(),
                part: name.clone(),
                id: id.clone(),
                benchmark: benchmark.to_owned(),
            })
        })
        .collect()
}

/// What names a run given as `pattern` when no name is given (the path
/// that `rankeval::naming` takes the stem of): the pattern without the
/// placeholder and the separator beside it (`runs/bm25-{forum}.trec` is
/// `bm25`), or the folder (`runs/bm25/{forum}.trec` and `runs/bm25/` are
/// `bm25`).
pub fn written(pattern: &Path) -> PathBuf {
    let text = pattern.to_string_lossy();
    let Some(at) = text.rfind(PLACEHOLDER) else {
        return pattern.to_owned();
    };
    let before = &text[..at];
    let after = &text[at + PLACEHOLDER.len()..];
    let in_file = &before[before.rfind('/').map_or(0, |i| i + 1)..];
    if in_file.is_empty() && (after.is_empty() || after.starts_with('.')) {
        // `runs/bm25/{forum}.trec`: the folder names the run.
        let folder = before.trim_end_matches('/');
        return if folder.is_empty() {
            pattern.to_owned()
        } else {
            PathBuf::from(folder)
        };
    }
    let separators = ['-', '_', '.'];
    PathBuf::from(match before.strip_suffix(separators) {
        Some(before) => format!("{before}{after}"),
        None => format!(
            "{before}{}",
            after.strip_prefix(separators).unwrap_or(after)
        ),
    })
}

/// The input of a part's run file `path`, read as `given` (the run as
/// given) is read: its columns, and its format when one was chosen rather
/// than guessed from the pattern's name.
pub fn part_input(given: &Input, pattern: &Path, path: &Path) -> Input {
    let input = Input::file(path).with_columns(given.csv_options().clone());
    if given.format() == Format::from_path(pattern) {
        input
    } else {
        input.with_format(given.format())
    }
}

/// The report of a benchmark of parts: each run's row per part is the
/// part's mean over its own queries (`fmean` of its per-query values, as
/// BEIR averages pytrec_eval's), the parts in the card's order, and its
/// aggregates over those rows (the mean: the benchmark's value, the mean
/// of the means). Each part's warnings are kept, said with their part;
/// the whole experiment's said by every part (the official note) once.
pub fn summary(
    reports: &[(String, String, Report)],
    aggregators: &[Box<dyn Aggregator>],
) -> Report {
    let Some((_, _, first)) = reports.first() else {
        return Report {
            metrics: Vec::new(),
            aggregators: aggregators.iter().map(|a| a.name()).collect(),
            corpus: Vec::new(),
            runs: Vec::new(),
            warnings: Vec::new(),
        };
    };
    let mut runs = Vec::with_capacity(first.runs.len());
    let mut aggregate_warnings = Vec::new();
    for (r, run) in first.runs.iter().enumerate() {
        let per_query: Vec<Vec<f64>> = (0..first.metrics.len())
            .map(|m| {
                reports
                    .iter()
                    .map(|(_, _, report)| {
                        report
                            .runs
                            .get(r)
                            .and_then(|run| run.per_query.get(m))
                            .map_or(f64::NAN, |column| fmean(column))
                    })
                    .collect()
            })
            .collect();
        let aggregated = aggregate_run(&run.name, &first.metrics, &per_query, aggregators);
        aggregate_warnings.extend(aggregated.warnings);
        runs.push(RunResult {
            name: run.name.clone(),
            queries: reports.iter().map(|(name, _, _)| name.clone()).collect(),
            per_query,
            aggregates: aggregated.values,
            intervals: aggregated.intervals,
            corpus: Vec::new(),
            groups: Vec::new(),
            ir_metadata: None,
        });
    }
    let mut warnings: Vec<RunWarning> = Vec::new();
    for (name, _, report) in reports {
        for warning in &report.warnings {
            let said = match &warning.warning {
                ReportWarning::Official { .. } => warning.clone(),
                other => RunWarning {
                    run: warning.run.clone(),
                    warning: ReportWarning::InPart {
                        part: name.clone(),
                        warning: Box::new(other.clone()),
                    },
                },
            };
            if !warnings.contains(&said) {
                warnings.push(said);
            }
        }
    }
    warnings.extend(aggregate_warnings);
    Report {
        metrics: first.metrics.clone(),
        aggregators: first.aggregators.clone(),
        corpus: Vec::new(),
        runs,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forums() -> Vec<(String, String)> {
        names(super::super::card().find("beir/cqadupstack").unwrap())
    }

    #[test]
    fn the_forums_are_named_by_the_last_part_of_their_id() {
        let forums = forums();
        assert_eq!(forums.len(), 12);
        assert_eq!(
            forums[0],
            ("android".to_owned(), "beir/cqadupstack/android".to_owned())
        );
    }

    #[test]
    fn a_pattern_names_each_forum_and_the_run() {
        let files = part_files(
            "beir/cqadupstack",
            Path::new("runs/bm25-{forum}.trec"),
            &forums(),
        )
        .unwrap();
        assert_eq!(files[11], PathBuf::from("runs/bm25-wordpress.trec"));
        for (pattern, name) in [
            ("runs/bm25-{forum}.trec", "runs/bm25.trec"),
            ("runs/{forum}_bm25.trec", "runs/bm25.trec"),
            ("runs/bm25/{forum}.trec", "runs/bm25"),
            ("runs/bm25/{forum}", "runs/bm25"),
            (
                "run.beir.bm25-flat.cqadupstack-{forum}.txt",
                "run.beir.bm25-flat.cqadupstack.txt",
            ),
            ("{forum}.trec", "{forum}.trec"),
            ("runs/{forum}/bm25.trec", "runs/bm25.trec"),
        ] {
            assert_eq!(
                written(Path::new(pattern)),
                PathBuf::from(name),
                "{pattern}"
            );
        }
        assert_eq!(
            crate::naming::stem(&written(Path::new("runs/bm25/{forum}.trec"))),
            "bm25"
        );
    }

    #[test]
    fn a_folder_holds_one_file_per_forum() {
        let dir = tempfile::tempdir().unwrap();
        let forums = forums();
        for (name, _) in &forums[1..] {
            std::fs::write(dir.path().join(format!("{name}.trec")), "").unwrap();
        }
        // Not a forum's: left alone.
        std::fs::write(dir.path().join("README"), "").unwrap();
        std::fs::write(dir.path().join("androids.trec"), "").unwrap();
        let error = part_files("beir/cqadupstack", dir.path(), &forums).unwrap_err();
        assert!(
            matches!(&error, PartsError::MissingInFolder { part, .. } if part == "android"),
            "{error}"
        );
        assert!(error.to_string().contains("no run for forum `android`"));
        std::fs::write(dir.path().join("android.trec.gz"), "").unwrap();
        let files = part_files("beir/cqadupstack", dir.path(), &forums).unwrap();
        assert_eq!(files[0], dir.path().join("android.trec.gz"));
        std::fs::write(dir.path().join("android.txt"), "").unwrap();
        let error = part_files("beir/cqadupstack", dir.path(), &forums).unwrap_err();
        assert!(matches!(error, PartsError::TwoInFolder { .. }), "{error}");
        let error =
            part_files("beir/cqadupstack", &dir.path().join("README"), &forums).unwrap_err();
        assert!(
            matches!(error, PartsError::OneFile { count: 12, .. }),
            "{error}"
        );
    }
}
