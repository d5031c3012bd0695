//! `--run [NAME=]FILE` as every command takes it: the library's naming
//! rule (`rankeval::naming`), with `-` read as standard input and the
//! rule's errors said in flags.

use std::path::{Path, PathBuf};

use rankeval::naming::{GivenRun, NameError, name_runs, split_named};

use crate::CliError;

/// Whether `path` is `-`, standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path`, with `-` for standard input as the file that reads it (its name
/// in reports is then `stdin`); a pipe or terminal on standard input is
/// read as any other pipe (streamed, spilled to a temporary file if it
/// must be read twice).
pub(crate) fn standard_input(path: &Path) -> PathBuf {
    if is_stdin(path) {
        PathBuf::from("/dev/stdin")
    } else {
        path.to_owned()
    }
}

/// Each `--run` value split into its name (if given) and file, `-` made
/// the file that reads standard input.
pub(crate) fn given_runs(texts: &[impl AsRef<Path>]) -> Vec<GivenRun> {
    texts
        .iter()
        .map(|text| {
            let given = split_named(text.as_ref());
            GivenRun {
                path: standard_input(&given.path),
                ..given
            }
        })
        .collect()
}

/// The report name of each run of `given` (split from `texts`, the values
/// of `--run` as typed, which the errors quote).
pub(crate) fn names(
    given: &[GivenRun],
    texts: &[impl AsRef<Path>],
) -> Result<Vec<String>, CliError> {
    let text = |index: usize| {
        texts
            .get(index)
            .map_or_else(String::new, |t| t.as_ref().display().to_string())
    };
    name_runs(given).map_err(|error| {
        CliError::Usage(match error {
            NameError::Unprintable { index } => format!("--run {}: {error}", text(index)),
            NameError::Clash {
                first,
                second,
                name,
            } => format!(
                "--run {} and --run {} are both named `{name}`; name them with NAME=FILE",
                text(first),
                text(second)
            ),
        })
    })
}

/// Each `--run` value's name and file.
pub(crate) fn named_runs(texts: &[impl AsRef<Path>]) -> Result<Vec<(String, PathBuf)>, CliError> {
    let given = given_runs(texts);
    let names = names(&given, texts)?;
    Ok(names
        .into_iter()
        .zip(given.into_iter().map(|g| g.path))
        .collect())
}
