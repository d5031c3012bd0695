//! TOML experiments: `raw` mirrors the file, `resolve` turns it into an
//! [`Experiment`](crate::experiment::Experiment) with paths made relative to
//! the file and every metric built, so that every error (an unknown key, an
//! unknown metric, `k = 0`, a missing file) appears, with its file and line,
//! before any data is read.

mod ope;
mod raw;
mod resolve;
mod suite_file;

use std::path::PathBuf;

use rankeval_core::registry::trec_eval_equivalent;
use rankeval_core::{PluginError, PluginKind};

pub use ope::{is_ope, load_ope, load_ope_bytes};
pub use resolve::load;
pub use suite_file::{SuiteFile, load_suite};

/// What a TOML file given alone to `rankeval run` holds.
#[derive(Debug)]
pub enum ConfigFile {
    /// A suite file (`experiments = [...]`).
    Suite(SuiteFile),
    /// An experiment file.
    Experiment(Box<crate::experiment::Experiment>),
    /// An off-policy evaluation (an `[ope]` table, docs/ope.md).
    Ope(Box<crate::spec::OpeRequest>),
}

/// The suite or the experiment the file at `path` holds, its bytes read
/// once: a FIFO or a shell's `<(...)` can be read only once (read again, it
/// would wait for another writer, or be empty).
pub fn load_file(path: &std::path::Path) -> Result<ConfigFile, ConfigError> {
    let bytes = read_config(path)?;
    if std::str::from_utf8(&bytes).is_ok_and(is_ope) {
        return load_ope_bytes(path, bytes).map(|r| ConfigFile::Ope(Box::new(r)));
    }
    // The suite check reads the text only; the experiment takes the bytes.
    match suite_file::suite_of(path, bytes.clone())? {
        Some(suite) => Ok(ConfigFile::Suite(suite)),
        None => resolve::load_bytes(path, bytes).map(|e| ConfigFile::Experiment(Box::new(e))),
    }
}

/// An experiment file is wrong. Displays as `file:line: problem`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The experiment file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be read within the limits of an experiment file
    /// (its size, a line's length: `/dev/zero`, a FIFO without end).
    #[error("{0}")]
    Limits(Box<crate::read::ReadError>),
    /// The file is not UTF-8 text (TOML must be).
    #[error("{path}:{line}: the file is not valid UTF-8 (TOML files are UTF-8 text)")]
    NotUtf8 {
        /// The experiment file.
        path: String,
        /// The line of the first invalid byte.
        line: u64,
    },
    /// The file is not valid TOML, or a key or value does not fit (this
    /// includes nesting deeper than the parser's limit of 80 levels).
    #[error("{path}: {}", toml_message(source))]
    Toml {
        /// The experiment file.
        path: String,
        /// The TOML error, which gives line, column and an excerpt.
        source: toml::de::Error,
    },
    /// A dotted key or table header has more parts than the TOML parser
    /// takes (it reports no position for this; the line is found here).
    #[error(
        "{path}:{line}: the key has {parts} dotted parts, too many: each part nests a table, \
         and an experiment file needs a few levels at most"
    )]
    KeyTooDeep {
        /// The experiment file.
        path: String,
        /// The line of the key.
        line: usize,
        /// How many parts the key has.
        parts: usize,
    },
    /// A key has a value that cannot be used.
    #[error("{path}:{line}: {key}: {reason}")]
    Invalid {
        /// The experiment file.
        path: String,
        /// The line of the key.
        line: usize,
        /// The key, e.g. `runs[2].name`.
        key: String,
        /// Why.
        reason: String,
    },
    /// A file the experiment names does not exist.
    #[error("{path}:{line}: {key}: no such file: {}", file.display())]
    MissingFile {
        /// The experiment file.
        path: String,
        /// The line of the key.
        line: usize,
        /// The key, e.g. `qrels`.
        key: String,
        /// The file looked for (relative to the experiment file).
        file: PathBuf,
    },
    /// A rule about values together, said in full.
    #[error("{0}")]
    Spec(Box<crate::spec::SpecError>),
    /// A metric or aggregator cannot be built.
    #[error("{path}:{line}: {key}: {}", plugin_message(source))]
    Plugin {
        /// The experiment file.
        path: String,
        /// The line of the table, or of the parameter at fault.
        line: usize,
        /// The table, e.g. `metrics[3]`.
        key: String,
        /// Why.
        source: Box<PluginError>,
    },
}

/// A spec's error as the TOML front end reports it: a value of the file
/// (its key and line) as the variants above, anything else as it is.
impl From<crate::spec::SpecError> for ConfigError {
    fn from(error: crate::spec::SpecError) -> Self {
        use crate::experiment::InputProblem;
        use crate::spec::{Origin, SpecError};
        match error {
            SpecError::Invalid {
                from: Origin::Key { file, line, key },
                reason,
            } => ConfigError::Invalid {
                path: file,
                line,
                key,
                reason,
            },
            SpecError::File {
                from: Origin::Key { file, line, key },
                path,
                problem: InputProblem::Missing,
            } => ConfigError::MissingFile {
                path: file,
                line,
                key,
                file: path,
            },
            SpecError::File {
                from: Origin::Key { file, line, key },
                path,
                problem,
            } => ConfigError::Invalid {
                path: file,
                line,
                key,
                reason: format!("{}: {problem}", path.display()),
            },
            SpecError::Plugin {
                from: Origin::Key { file, line, key },
                source,
            } => ConfigError::Plugin {
                path: file,
                line,
                key,
                source,
            },
            other => ConfigError::Spec(Box::new(other)),
        }
    }
}

/// The TOML error as the toml crate renders it (line, column, the line
/// with a caret, the problem), the excerpt cut to 160 characters: an
/// excerpt of a line 200,000 characters long (`x = [[[[...`) would drown
/// the message.
fn toml_message(error: &toml::de::Error) -> String {
    const WIDTH: usize = 160;
    let text = error.to_string();
    let hint = if text.contains("max recursion depth") {
        "\n(arrays, inline tables or dotted keys are nested too deeply: an experiment file \
         needs a few levels at most)"
    } else {
        ""
    };
    let cut = text
        .trim_end()
        .lines()
        .map(|line| match line.char_indices().nth(WIDTH) {
            // Only the excerpt (`7 | x = [[[...`, and its caret line).
            Some((cut, _)) if is_excerpt(line) => format!("{}…", &line[..cut]),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    cut + hint
}

/// Whether a line of a toml error is part of its excerpt (`7 | ...`,
/// `  |     ^`) rather than its message.
fn is_excerpt(line: &str) -> bool {
    let head = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    head.starts_with('|') && line.len() - head.len() <= 12
}

/// A metric or aggregator error as both front ends (`-m` and TOML) print
/// it. An unknown metric that is a trec_eval measure (`P_10`, `map_cut_10`,
/// `recip_rank`) names the metric that computes it, from the registry.
pub fn plugin_message(error: &PluginError) -> String {
    if let PluginError::Unknown {
        kind: PluginKind::Metric,
        name,
        ..
    } = error
        && let Some(equivalent) = trec_eval_equivalent(name)
    {
        return format!("unknown metric `{name}`; it is trec_eval's name for {equivalent}");
    }
    error.to_string()
}

/// The bytes of the experiment or suite file at `path`, read within the
/// limits of every whole-read input (`rankeval_readers::WholeInput::CONFIG`:
/// 64 MiB, lines of at most 64 MiB), so that `/dev/zero` or a FIFO without
/// end is an error naming the file rather than memory without bound.
pub(crate) fn read_config(path: &std::path::Path) -> Result<Vec<u8>, ConfigError> {
    use crate::read::ReadErrorKind;
    crate::read::read_whole(path, crate::read::WholeInput::CONFIG).map_err(|e| match e.kind {
        ReadErrorKind::Io(source) => ConfigError::Read {
            path: path.display().to_string(),
            source,
        },
        _ => ConfigError::Limits(Box::new(e)),
    })
}
