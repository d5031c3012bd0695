//! Rust errors as Python exceptions: one hierarchy under `RankevalError`,
//! each carrying the file (or in-memory input), the line (or row) and the
//! message of the Rust error as attributes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::{PyErr, Python, create_exception};
use rankeval::front::FrontEnd;
use rankeval::{ReadError, ReadErrorKind};
use rankeval_core::{PluginError, QrelsError, RunError};

create_exception!(
    rankeval_rs,
    RankevalError,
    PyValueError,
    "Base class of every error rankeval raises, a ValueError (what was given is wrong); `file`, `line` and `message` say where and what."
);
create_exception!(
    rankeval_rs,
    InputError,
    RankevalError,
    "Qrels or a run could not be read: `file` names the file (or the in-memory input), `line` the 1-based line (or row), `message` the problem."
);
create_exception!(
    rankeval_rs,
    MetricError,
    RankevalError,
    "A metric could not be built from its spec, or a Python metric failed."
);

create_exception!(
    rankeval_rs,
    ConfigError,
    RankevalError,
    "An experiment file (TOML) is wrong: `file` and `line` say where, `message` what."
);
create_exception!(
    rankeval_rs,
    CompareError,
    RankevalError,
    "A comparison cannot be made: a setting out of range, an unknown baseline, a gate that does not fit the report."
);

/// An exception of type `T` with `file`, `line` and `message` attributes,
/// its text `file:line: message` as the command line prints it.
pub fn located<T: pyo3::PyTypeInfo>(file: Option<&str>, line: Option<u64>, message: &str) -> PyErr {
    let text = match (file, line) {
        (Some(file), Some(line)) => format!("{file}:{line}: {message}"),
        (Some(file), None) => format!("{file}: {message}"),
        _ => message.to_owned(),
    };
    Python::attach(|py| {
        let error = PyErr::from_type(py.get_type::<T>(), (text,));
        let value = error.value(py);
        let set = || -> PyResult<()> {
            value.setattr("file", file)?;
            value.setattr("line", line)?;
            value.setattr("message", message)?;
            Ok(())
        };
        match set() {
            Ok(()) => error,
            Err(failed) => failed,
        }
    })
}

/// A reader's error: the file, line and problem it names. For a table
/// (Arrow data, Parquet) the line is the 1-based row the problem is at; the
/// command line's advice on repeated documents gets its Python spelling.
pub fn read_error(error: &ReadError) -> PyErr {
    let mut message = rankeval::read_advice::read_problem(&error.kind, FrontEnd::Python);
    if message.contains("--duplicates first") {
        message.push_str("; from Python, pass duplicates=\"first\"");
    }
    let raised = located::<InputError>(Some(&error.path), error.line, &message);
    if let (ReadErrorKind::AtRow { row, .. }, None) = (&error.kind, error.line) {
        // The message already says `row N`: only the attribute is set.
        Python::attach(|py| raised.value(py).setattr("line", *row).err()).unwrap_or(raised)
    } else {
        raised
    }
}

/// An error building a run from in-memory data called `name`; the line is
/// the 1-based entry (row) the error is at.
pub fn run_error(name: &str, error: &RunError) -> PyErr {
    let line = match error {
        RunError::DuplicateDoc { second, .. } => Some(*second),
        RunError::NanScore { at, .. }
        | RunError::QueryNotUtf8 { at }
        | RunError::ListTooLarge { at } => Some(*at),
        _ => None,
    };
    let mut message = error.to_string();
    if matches!(error, RunError::DuplicateDoc { .. }) {
        message.push_str("; to keep the first occurrence, pass duplicates=\"first\"");
    }
    located::<InputError>(Some(name), line, &message)
}

/// An error building qrels from in-memory data called `name`.
pub fn qrels_error(name: &str, error: &QrelsError) -> PyErr {
    let line = match error {
        QrelsError::ConflictingGrades { second, .. } => Some(*second),
        QrelsError::InvalidGrade { at, .. }
        | QrelsError::QueryNotUtf8 { at }
        | QrelsError::ListTooLarge { at } => Some(*at),
        _ => None,
    };
    located::<InputError>(Some(name), line, &error.to_string())
}

/// A metric spec that does not build, in the command line's words (a
/// trec_eval name such as `P_10` names the metric that computes it).
pub fn metric_error(spec: &str, error: &PluginError) -> PyErr {
    let message = format!(
        "metric `{spec}`: {}",
        rankeval::config::plugin_message(error)
    );
    located::<MetricError>(None, None, &message)
}
