//! The inputs `rankeval ppi`, `rankeval agree`, `rankeval expected` and `rankeval spans`
//! share: qrels with a chosen grade column, named runs, and metrics.

use std::path::{Path, PathBuf};

use rankeval::core::{Metric, Qrels, Run, registry};
use rankeval::engine::QuerySample;
use rankeval::read::{
    CsvOptions, Format, Input, UngradedRows, WholeInput, read_judge_qrels, read_whole,
};
use rankeval::report::ReportWarning;
use rankeval::{ReadOptions, read_run};

use super::CliError;

/// One judge's judgements on the command line: the file, its grade column
/// (in a table), and how messages name the judge (`people`, `the model`,
/// `llm`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JudgeFile<'a> {
    /// The qrels file or table.
    pub(crate) path: &'a Path,
    /// The grade column, in a table.
    pub(crate) grade: Option<&'a str>,
    /// The judge, as messages name it.
    pub(crate) judge: &'a str,
}

/// Reads two judges' qrels (`ppi`'s model and people, `agree`'s two sets)
/// with [`qrels`]. One path named for both that cannot be read twice (a
/// FIFO, `/dev/stdin`: `--qrels t.csv --human t.csv` with `t.csv` a pipe)
/// is read once, whole, within the readers' limits; read twice, the second
/// read would wait for a writer for ever, or find the pipe empty.
pub(crate) fn two_qrels(
    first: JudgeFile<'_>,
    second: JudgeFile<'_>,
) -> Result<(Qrels, Qrels), CliError> {
    let regular = |path: &Path| std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let same = first.path == second.path || rankeval::files::same_file(first.path, second.path);
    let shared = if same && !regular(first.path) {
        let kind = WholeInput::of_format(Input::file(first.path).format());
        Some(read_whole(first.path, kind)?)
    } else {
        None
    };
    Ok((
        qrels(first, shared.as_deref())?,
        qrels(second, shared.as_deref())?,
    ))
}

/// Reads one judge's qrels from `file` (from `bytes`, its content already
/// read, if given), its grades from the column `file.grade` if given (a
/// table's column: CSV, Parquet, JSON Lines rows). In a table that holds
/// several judges' grades, a row whose grade is empty (CSV) or null (JSON,
/// Parquet, Arrow) is a pair this judge did not judge: left out, and
/// counted in a note on standard error with the first such row. A table
/// without a grade column is warned about, as `eval` does.
fn qrels(file: JudgeFile<'_>, bytes: Option<&[u8]>) -> Result<Qrels, CliError> {
    let JudgeFile { path, grade, judge } = file;
    let input = Input::file(path);
    let input = match bytes {
        Some(bytes) => Input::bytes(path.display().to_string(), bytes.to_vec(), input.format()),
        None => input,
    };
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
    let read = read_judge_qrels(&input, &|_| {})?;
    let name = path.display().to_string();
    if let Some(note) = read.note {
        eprintln!("warning: {}", ReportWarning::of_qrels(&name, note));
    }
    if let Some(message) = ungraded_note(&name, &input.csv_options().grade, judge, &read.ungraded) {
        eprintln!("note: {message}");
    }
    Ok(read.qrels)
}

/// The first ids of `sample` for a message, each cut as every message cuts
/// ids, `...` after them when there are more: `` `q1`, `q2`, ... ``.
pub(crate) fn examples(sample: &QuerySample) -> String {
    let mut examples: Vec<String> = sample
        .first
        .iter()
        .map(|id| format!("`{}`", rankeval::core::shorten_id(id.as_bytes())))
        .collect();
    if sample.count > examples.len() {
        examples.push("...".to_owned());
    }
    examples.join(", ")
}

/// The note for the rows of `name` left out because their grade (in the
/// column `column`) was empty or null: how many, and the first.
fn ungraded_note(name: &str, column: &str, judge: &str, rows: &UngradedRows) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let one = rows.count == 1;
    Some(format!(
        "{name}: {} {} no grade in `{}` (empty or null): read as not judged by {judge}{}",
        rows.count,
        if one { "row has" } else { "rows have" },
        rankeval::core::shorten_id(column.as_bytes()),
        rows.first
            .map(|at| format!(" ({}{at})", if one { "" } else { "the first at " }))
            .unwrap_or_default()
    ))
}

/// Reads each `[NAME=]FILE` of `--run`, named by the one naming rule
/// (`rankeval::naming`); two runs of one name are an error.
pub(crate) fn runs(given: &[String]) -> Result<Vec<(String, Run)>, CliError> {
    crate::run_names::named_runs(given)?
        .into_iter()
        .map(|(name, path)| Ok((name, read_run(&Input::file(&path), ReadOptions::default())?)))
        .collect()
}

/// Refuses `-o` when it names one of a command's inputs: `files` (a role
/// and a path each) or one of the `[NAME=]FILE` runs `runs`; the report
/// would overwrite it (`output::refuse_an_input`, the rule `eval` follows).
pub(crate) fn refuse_output_over(
    output: Option<&Path>,
    files: &[(&'static str, &Path)],
    runs: &[impl AsRef<Path>],
) -> Result<(), CliError> {
    let Some(target) = output else {
        return Ok(());
    };
    let runs = crate::run_names::named_runs(runs)?;
    super::output::refuse_an_input(
        target,
        files
            .iter()
            .copied()
            .chain(runs.iter().map(|(_, path)| ("a run", path.as_path()))),
    )
}

/// The name and file of a `[NAME=]FILE` given alone (`rankeval agree`'s
/// `--qrels`): the run naming rule for one file.
pub(crate) fn run_name(text: &str) -> Result<(String, PathBuf), CliError> {
    let mut named = crate::run_names::named_runs(&[text])?;
    Ok(named.remove(0))
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
