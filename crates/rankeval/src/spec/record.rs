//! The results history's request (`--record DB`, `--label`; TOML
//! `[record]`; Python `record=`, `label=`) and its rules, once.

use std::path::PathBuf;

use super::origin::Given;
use super::resolve::SpecError;
use crate::record::{RecordPlan, ci_commit};

/// Where and how to record the results, as asked for.
#[derive(Debug, Default)]
pub struct RecordRequest {
    /// The database file (created when missing).
    pub db: Option<Given<PathBuf>>,
    /// A label for the records.
    pub label: Option<Given<String>>,
    /// The commit under test; when not given, the CI's variables
    /// ([`crate::record::CI_COMMIT_VARIABLES`]) are looked at.
    pub commit: Option<Given<String>>,
    /// The SHA-256 of the experiment file, when the request came from one
    /// (`rankeval_history::fingerprint::bytes_hash` of the bytes read).
    pub experiment_hash: Option<String>,
}

/// The longest label or commit, in characters.
pub const MAX_LABEL: usize = 200;

/// Checks `request` and gives the record to write, if any: a label or
/// commit needs a database; the database's path cannot be a directory nor
/// lie in a missing folder (its content is judged when it is opened); a
/// label or commit is one printable line of at most [`MAX_LABEL`]
/// characters.
pub fn resolve_record(request: RecordRequest) -> Result<Option<RecordPlan>, SpecError> {
    let RecordRequest {
        db,
        label,
        commit,
        experiment_hash,
    } = request;
    let Some(db) = db else {
        if let Some(given) = label.as_ref().or(commit.as_ref()) {
            return Err(SpecError::Invalid {
                from: given.from.clone(),
                reason: format!(
                    "names a record: give {} too",
                    given.from.option("record", None)
                ),
            });
        }
        return Ok(None);
    };
    let path = db.value;
    let problem = if path.is_dir() {
        Some("is a directory: give the database file's path".to_owned())
    } else {
        match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => {
                Some(format!("its folder {} does not exist", parent.display()))
            }
            _ => None,
        }
    };
    if let Some(problem) = problem {
        return Err(SpecError::Invalid {
            from: db.from,
            reason: problem,
        });
    }
    let label = label.map(line).transpose()?;
    let commit = match commit {
        Some(given) => Some(line(given)?),
        None => ci_commit(|name| std::env::var(name).ok()).map(|(_, value)| value),
    };
    Ok(Some(RecordPlan {
        db: path,
        label,
        commit,
        experiment_hash,
    }))
}

/// `given` trimmed: one printable line, not blank, at most [`MAX_LABEL`]
/// characters.
fn line(given: Given<String>) -> Result<String, SpecError> {
    let text = given.value.trim();
    if text.is_empty() || text.chars().any(char::is_control) || text.chars().count() > MAX_LABEL {
        return Err(SpecError::Invalid {
            from: given.from,
            reason: format!(
                "must be one line of 1 to {MAX_LABEL} characters, without a tab, newline or \
                 other control character"
            ),
        });
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Origin;

    fn given<T>(value: T, flag: &str) -> Option<Given<T>> {
        Some(Given::new(value, Origin::bare_flag(flag)))
    }

    #[test]
    fn rules() {
        assert_eq!(resolve_record(RecordRequest::default()).unwrap(), None);
        let error = resolve_record(RecordRequest {
            label: given("nightly".into(), "--label"),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "--label: names a record: give --record too"
        );
        let dir = tempfile::tempdir().unwrap();
        let error = resolve_record(RecordRequest {
            db: given(dir.path().to_owned(), "--record"),
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("is a directory: give the database file's path")
        );
        let error = resolve_record(RecordRequest {
            db: given(dir.path().join("no/h.sqlite"), "--record"),
            ..Default::default()
        })
        .unwrap_err();
        assert!(error.to_string().contains("does not exist"), "{error}");
        for bad in ["", "  ", "a\nb", &"x".repeat(201)] {
            let error = resolve_record(RecordRequest {
                db: given(dir.path().join("h.sqlite"), "--record"),
                label: given(bad.to_owned(), "--label"),
                ..Default::default()
            })
            .unwrap_err();
            assert!(
                error.to_string().starts_with("--label: must be one line"),
                "{error}"
            );
        }
        let plan = resolve_record(RecordRequest {
            db: given(dir.path().join("h.sqlite"), "--record"),
            label: given(" nightly ".into(), "--label"),
            commit: given("abc123".into(), "--commit"),
            experiment_hash: None,
        })
        .unwrap()
        .unwrap();
        assert_eq!(plan.label.as_deref(), Some("nightly"));
        assert_eq!(plan.commit.as_deref(), Some("abc123"));
    }
}
